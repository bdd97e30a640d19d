/**
 * Cursor pagination of a listing, newest first (contract section 5): the `limit` and `cursor`
 * query parameters, the `pagination` object of a page, and the cut of one extra row that tells
 * whether there is more.
 */
import { Schema } from "effect"

export const MAX_CURSOR_LENGTH = 512

/**
 * Where a page ended, in the listing's order (created_at desc, id desc). `createdAt` is the
 * timestamp as PostgreSQL writes it (`created_at::text`), which it reads back exactly
 * (`${createdAt}::timestamptz`): a JavaScript Date would drop the microseconds, and the next page
 * would then repeat or skip items created within the same millisecond.
 */
export const CursorPosition = Schema.Struct({
  createdAt: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)),
  id: Schema.UUID
})
export type CursorPosition = typeof CursorPosition.Type

export const DEFAULT_PAGE = 25
export const MAX_PAGE = 100

export const ListParams = Schema.Struct({
  limit: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_PAGE, { message: () => `must be an integer from 1 to ${MAX_PAGE}` }))
  ).annotations({ description: `1 to ${MAX_PAGE}, default ${DEFAULT_PAGE}` }),
  cursor: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(MAX_CURSOR_LENGTH))).annotations({
    description: "pagination.nextCursor of the preceding page"
  })
})

export const Pagination = Schema.Struct({
  hasMore: Schema.Boolean,
  nextCursor: Schema.NullOr(Schema.String.pipe(Schema.maxLength(MAX_CURSOR_LENGTH)))
})

/**
 * A page of at most `limit` items from `rows`, which the store fetched with `limit + 1` so that
 * the extra one tells whether there is more; the cursor names the last item shown.
 */
export const pageOf = <A extends { readonly position: CursorPosition }>(
  rows: ReadonlyArray<A>,
  limit: number,
  encode: (position: CursorPosition) => string
): { items: ReadonlyArray<A>; pagination: typeof Pagination.Type } => {
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  const hasMore = rows.length > limit
  return { items, pagination: { hasMore, nextCursor: hasMore && last ? encode(last.position) : null } }
}
