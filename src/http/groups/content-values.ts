/**
 * Content values (template ids, locales, colours, accents, paper, font families) are plain strings
 * in request schemas, because the contract answers a bad one with 422 rather than 400 and the
 * renderer's checks decide; the OpenAPI document still lists the values a client may send.
 */
import { Schema } from "effect"

export const oneOf = (values: ReadonlyArray<string>, description?: string) =>
  Schema.String.annotations({ ...(description ? { description } : {}), jsonSchema: { type: "string", enum: values } })

export const hexColor = Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" } })
