/** A warning of a render (contract section 6): `{ code, message, line }`, line 1-based or null. */
export interface RenderWarning {
  readonly code: string
  readonly message: string
  readonly line: number | null
}

/** A job response carries at most 100 warnings (specification 2.13). */
export const MAX_WARNINGS = 100
