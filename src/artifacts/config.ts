/** Artifacts' settings (contract section 1): download links' lifetime and the base of their absolute `href`, and how long artifacts are kept. */
import { Config, Option } from "effect"

/** The specification's ceiling on a download link's life: five minutes. */
export const MAX_LINK_TTL_SECONDS = 300

export const linkTtlConfig = Config.integer("PRESSROOM_LINK_TTL_SECONDS").pipe(
  Config.withDefault(MAX_LINK_TTL_SECONDS),
  Config.validate({
    message: `PRESSROOM_LINK_TTL_SECONDS must be from 1 to ${MAX_LINK_TTL_SECONDS} (a download link lasts at most five minutes)`,
    validation: (seconds) => seconds >= 1 && seconds <= MAX_LINK_TTL_SECONDS
  })
)

const isBaseUrl = (text: string) => {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "" && url.username === ""
}

/**
 * `PRESSROOM_PUBLIC_BASE_URL`, without its trailing slashes so that a path can be appended; none
 * when unset (or empty), in which case links are based on the address the server listens on.
 */
export const publicBaseUrlConfig = Config.option(Config.string("PRESSROOM_PUBLIC_BASE_URL")).pipe(
  Config.map(Option.filter((text) => text.trim() !== "")),
  Config.validate({
    message: "PRESSROOM_PUBLIC_BASE_URL must be an http or https URL without query, fragment or credentials",
    validation: Option.match({ onNone: () => true, onSome: isBaseUrl })
  }),
  Config.map(Option.map((text) => text.trim().replace(/\/+$/, "")))
)

export const linkConfig = Config.all({ ttlSeconds: linkTtlConfig, publicBaseUrl: publicBaseUrlConfig })

/** Lifetimes after finalisation (contract section 1): previews 15 minutes, finals seven days. */
const lifetime = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be at least 1`, validation: (n) => n >= 1 })
  )

export const retentionConfig = Config.all({
  previewTtlSeconds: lifetime("PRESSROOM_PREVIEW_TTL_SECONDS", 900),
  finalTtlSeconds: lifetime("PRESSROOM_FINAL_TTL_SECONDS", 604_800)
})
