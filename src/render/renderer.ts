/**
 * The renderer: Markdown + template + locale + options into a PDF with its SHA-256, page count,
 * warnings and provenance. It owns the compiler pool; everything else here is pure.
 */
import { Either, ParseResult, Schema } from "effect"
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
import { asCommonMark, excerpt } from "../shared/text.ts"
import { availableParallelism } from "node:os"
import packageJson from "../../package.json" with { type: "json" }
import { catalog, findTemplate, type TemplateId, templatePath } from "./catalog.ts"
import { readBundle, type BundleFile } from "./engine/bundle.ts"
import {
  CompileFailure,
  refusalOf,
  type TypesetJob,
  type TypesetResult,
  type TypstEngine,
  type WorkerReplacements
} from "./engine/engine.ts"
import { NativeEnginePool } from "./engine/native-pool.ts"
import {
  DEFAULT_COMPILER_MEMORY_MIB,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WORKER_HEAP_MIB,
  DEFAULT_WORKER_MEMORY_MIB,
  type EnginePool
} from "./engine/pool.ts"
import { compilerRelease, WasmEnginePool } from "./engine/wasm-pool.ts"
import { type Coverage, describeCharacters, missingCharacters, recordedCoverage } from "./fonts/coverage.ts"
import { fontSetSha256, packageRoot, readManifest, type VerifiedFont, verifyFonts } from "./fonts/manifest.ts"
import { isLocale, type Locale, localeData } from "./locales.ts"
import { countCharacters, MAX_MARKDOWN_CHARACTERS } from "./markdown-length.ts"
import { MAX_TABLE_COLUMNS, tooWideTable } from "./markdown/table-width.ts"
import { resolveOptions, RenderOptions } from "./common/options.ts"
import { RenderOverrides } from "./common/overrides.ts"
import type { Channel, Provenance } from "./provenance.ts"
import { assetSetSha256, completeProvenance, type PlannedProvenance, reuseKeyOf } from "./provenance-hashes.ts"
import { type TemplateHashes, templateHashes } from "./template-hashes.ts"
import { MAX_WARNINGS, type RenderWarning } from "./common/warnings.ts"

export const rendererVersion = `pressroom ${packageJson.version}`

/**
 * `templateId` and `locale` are typed as the catalog's and the locales' unions, so a typo fails to
 * compile; the renderer checks them all the same (InvalidRenderRequest), since a caller may cast.
 */
export interface RenderRequest {
  readonly markdown: string
  readonly templateId: TemplateId
  readonly locale?: Locale
  /** Unvalidated options: checked against the specification's option schema. */
  readonly options?: unknown
  /**
   * A custom template's overrides of its built-in template, unvalidated: checked against the
   * `RenderOverrides` schema (`paper` "a4" or "us-letter", `fontFamily` a bundled family).
   */
  readonly overrides?: { readonly paper?: string; readonly fontFamily?: string }
  readonly channel?: Channel
  /** The canonical hash of the request that asked for this render (a job's requestSha256). */
  readonly requestSha256?: string
}

export interface RenderCallOptions {
  /**
   * Aborting it cancels the render: a queued render is dropped, a running one's compiler worker is
   * terminated (and replaced), and the render rejects with RenderingFailed, reason `cancelled`.
   */
  readonly signal?: AbortSignal
}

/**
 * A request from text nobody has checked yet (a command's arguments, a job's stored spec), which
 * the renderer checks: an unknown template or locale is its InvalidRenderRequest.
 */
export const uncheckedRequest = (
  request: Omit<RenderRequest, "templateId" | "locale"> & { readonly templateId: string; readonly locale?: string | undefined }
): RenderRequest => request as RenderRequest

/** A render as known before typesetting (`Renderer.plan`). */
export interface RenderPlan {
  /** What the engine typesets. */
  readonly typeset: TypesetJob
  /** The provenance but for `assetSetSha256` and the manifest, which need the embedded images. */
  readonly provenance: PlannedProvenance
  /** The manifest without its asset set, which the source determines (provenance-hashes.ts, `reuseKeyOf`). */
  readonly reuseKey: string
}

export interface RenderResult {
  readonly pdf: Uint8Array
  readonly sha256: string
  readonly pageCount: number
  readonly warnings: ReadonlyArray<RenderWarning>
  readonly provenance: Provenance
}

/** The request cannot be rendered as asked (an unknown template, locale or option): a 422. */
export class InvalidRenderRequest extends Schema.TaggedError<InvalidRenderRequest>()("InvalidRenderRequest", {
  field: Schema.String,
  message: Schema.String
}) {}

/**
 * The document could not be typeset (`rendering_failed`). `reason` says why, for logs and retries
 * (only `crashed` is the service's fault, CompileFailureReason; `rejected` also for a table wider
 * than MAX_TABLE_COLUMNS, refused before a worker sees it, and for a document the converter refuses,
 * whose message says why: engine.ts's `refused`); `diagnostics` are the compiler's
 * messages, for the CLI, never for an API client (they may name template internals) nor, but for
 * those of a trap, which are the pool's own, for logs (they may quote the document).
 */
export class RenderingFailed extends Schema.TaggedError<RenderingFailed>()("RenderingFailed", {
  reason: Schema.Literal("rejected", "timeout", "trapped", "out_of_memory", "crashed", "cancelled"),
  message: Schema.String,
  diagnostics: Schema.Array(Schema.String)
}) {}

/**
 * Which Typst compiler typesets: `wasm`, typst.ts's WebAssembly build in worker threads (the
 * portable reference, under Node and Deno), or `native`, the native build of the same release in
 * child processes (Node, on the platforms it ships for; faster on long documents). Both give the
 * same bytes.
 */
export type RenderEngine = "wasm" | "native"

/** Every field may be left out; `render()` takes them from the environment (src/render/config.ts) instead. */
export interface RendererConfig {
  /** Default `wasm`. */
  readonly engine?: RenderEngine
  /** How many documents typeset at once, one worker each (default: the machine's available parallelism). */
  readonly workers?: number
  /** How long one render may take before it fails with `timeout`, in milliseconds (default 30,000). */
  readonly timeoutMs?: number
  /**
   * A worker whose compiler memory (WebAssembly memory; what typesetting added to a native worker's resident memory) has
   * grown past this many MiB is replaced after its render (default 256).
   */
  readonly workerMemoryMiB?: number
  /**
   * The JavaScript heap a worker parses and converts a document in, in MiB (default
   * DEFAULT_WORKER_HEAP_MIB; a WebAssembly worker's converter thread, a native worker's process):
   * a document that exhausts it fails with `out_of_memory` and its worker is replaced.
   */
  readonly workerHeapMiB?: number
  /**
   * The most a worker's compiler memory may grow to during a render, in MiB (default
   * DEFAULT_COMPILER_MEMORY_MIB): a document that needs more fails with `rendering_failed`. A
   * native worker's resident memory less what it held before its first job, read every 100 ms while it renders (process-host.ts).
   */
  readonly compilerMemoryMiB?: number
  /**
   * Whether each worker typesets a warm-up page before it takes jobs (default true), so that a
   * server's first renders do not pay for the first use of faces, highlighting and tables. A
   * one-shot command renders once and skips it: about half a second of its start.
   */
  readonly warmUp?: boolean
}

const decodeOptions = Schema.decodeUnknownEither(RenderOptions, { onExcessProperty: "error", errors: "first" })
const decodeOverrides = Schema.decodeUnknownEither(RenderOverrides, { onExcessProperty: "error", errors: "first" })

/** The first issue of a decoding, named by its path under `field` ("options.bodyTextColor"). */
const invalidAt = (field: string, error: ParseResult.ParseError): InvalidRenderRequest => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue?.path.length ? `${field}.${issue.path.join(".")}` : field
  return new InvalidRenderRequest({ field: path, message: `${path}: ${issue?.message ?? "invalid"}` })
}

const pageCountOf = (pdf: Uint8Array): number => {
  // Typst records the page count in the document's XMP metadata, which is never compressed.
  const head = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString("latin1")
  const match = /<xmpTPg:NPages>(\d+)<\/xmpTPg:NPages>/.exec(head)
  return match ? Number(match[1]) : 1
}

const capWarnings = (warnings: ReadonlyArray<RenderWarning>): ReadonlyArray<RenderWarning> =>
  warnings.length <= MAX_WARNINGS
    ? warnings
    : [
        ...warnings.slice(0, MAX_WARNINGS - 1),
        { code: "warnings_truncated", message: `${warnings.length - MAX_WARNINGS + 1} more warnings not shown`, line: null }
      ]

export class Renderer {
  /** The bundle never changes during a renderer's life: each template is hashed once. */
  private readonly hashesByTemplate = new Map<string, TemplateHashes>()
  /** `catalogSha256` of every render (contract section 11). */
  readonly catalogSha256: string

  private constructor(
    private readonly engine: TypstEngine,
    private readonly bundle: ReadonlyArray<BundleFile>,
    /** The code points the font set covers (for `missing_glyphs`). */
    readonly coverage: Coverage,
    readonly fontSetSha256: string,
    private readonly limits: RenderLimits
  ) {
    this.catalogSha256 = catalogSha256Of(bundle)
  }

  /**
   * Verifies the font set (throws naming a missing or altered file), starts the pool and waits for
   * it. Asking for the native engine where its binary cannot run throws NativeEngineUnavailable.
   */
  static async create(config: RendererConfig = {}): Promise<Renderer> {
    const manifest = readManifest()
    const fonts = verifyFonts(manifest)
    const bundle = readCompleteBundle()
    // The bounds each render is held to, defaults applied here once: the pools enforce them and a
    // failed render's message names them.
    const limits: RenderLimits = {
      timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      heapMiB: config.workerHeapMiB || DEFAULT_WORKER_HEAP_MIB,
      compilerMemoryMiB: config.compilerMemoryMiB || DEFAULT_COMPILER_MEMORY_MIB
    }
    const compilerMemoryBytes = limits.compilerMemoryMiB * 1024 * 1024
    const common = {
      size: config.workers ?? availableParallelism(),
      timeoutMs: limits.timeoutMs,
      fonts,
      recycleAboveBytes: (config.workerMemoryMiB ?? DEFAULT_WORKER_MEMORY_MIB) * 1024 * 1024,
      heapMiB: limits.heapMiB,
      warmUp: config.warmUp ?? true
    }
    const fontSet = fontSetSha256(manifest)
    if (config.engine === "native") {
      const pool = new NativeEnginePool({ ...common, memoryLimitBytes: compilerMemoryBytes })
      const recorded = recordedCoverage(packageRoot, fontSet, compilerRelease().version)
      const [started, coverage] = await Promise.allSettled([warm(pool), recorded ?? typstCoverage(fonts, bundle)])
      if (started.status === "rejected") throw started.reason
      if (coverage.status === "rejected") {
        await pool.close()
        throw coverage.reason
      }
      return new Renderer(pool, bundle, coverage.value, fontSet, limits)
    }
    const pool = new WasmEnginePool({ ...common, bundle, compilerMemoryBytes })
    await warm(pool)
    return new Renderer(pool, bundle, pool.coverage, fontSet, limits)
  }

  /**
   * Everything known about a render of `request` before typesetting, without calling the engine:
   * the request checked (throws InvalidRenderRequest), what the engine will typeset, and the
   * provenance but for the embedded images, with the key a job is reused by (src/jobs/reuse.ts).
   */
  plan(request: RenderRequest): RenderPlan {
    const { markdown, templateId, locale, options, overrides } = this.validate(request)
    const effective = resolveOptions(options, findTemplate(templateId)!.defaults, overrides)
    const data = localeData[locale]
    const rawOptions = (request.options ?? {}) as object
    // Overrides are part of what was asked, but only when there are any: without them the request
    // hashes as it always has.
    const asked = Object.keys(overrides).length > 0 ? { overrides } : {}
    const provenance: PlannedProvenance = {
      catalogSha256: this.catalogSha256,
      fontSetSha256: this.fontSetSha256,
      renderOptionsSha256: jcsSha256(effective),
      rendererReleaseChecksum: this.engine.releaseChecksum,
      ...this.templateHashes(templateId),
      optionsSha256: jcsSha256(rawOptions),
      requestSha256:
        request.requestSha256 ??
        jcsSha256({
          operation: "render",
          pathParams: {},
          body: { markdown, templateId, locale, options: rawOptions, ...asked }
        }),
      sourceSha256: sha256Hex(markdown),
      catalogVersion: catalog.catalogVersion,
      rendererVersion,
      engineVersion: this.engine.engineVersion,
      typstVersion: this.engine.typstVersion,
      channel: request.channel ?? "internal",
      locale,
      templateId,
      templateReleaseId: null,
      synthetic: false
    }
    return {
      typeset: { markdown, templateId, options: effective, locale: { code: locale, lang: data.lang, region: data.region, dir: data.dir } },
      provenance,
      reuseKey: reuseKeyOf(provenance)
    }
  }

  async render(request: RenderRequest, options: RenderCallOptions = {}): Promise<RenderResult> {
    return this.renderPlanned(this.plan(request), options)
  }

  /** Typesets what `plan` planned, for a caller that planned first (the supervisor looks for a render to reuse). */
  async renderPlanned(plan: RenderPlan, { signal }: RenderCallOptions = {}): Promise<RenderResult> {
    const columns = tooWideTable(plan.typeset.markdown)
    if (columns !== undefined) {
      const message = `the document has a table of ${columns} columns, and a table may have at most ${MAX_TABLE_COLUMNS}`
      throw new RenderingFailed({ reason: "rejected", message, diagnostics: [] })
    }
    let typeset: TypesetResult
    try {
      typeset = await this.engine.typeset(plan.typeset, signal)
    } catch (error) {
      if (error instanceof CompileFailure) {
        throw new RenderingFailed({ reason: error.reason, message: failureMessage(error, this.limits), diagnostics: error.details })
      }
      throw error
    }
    const warnings = [...typeset.warnings]
    const missing = missingCharacters(plan.typeset.markdown, this.coverage)
    if (missing.length > 0) {
      warnings.push({ code: "missing_glyphs", message: `no bundled font covers: ${describeCharacters(missing)}`, line: null })
    }
    const provenance = completeProvenance(plan.provenance, assetSetSha256(typeset.assetSha256s))
    const pdf = typeset.pdf
    return { pdf, sha256: sha256Hex(pdf), pageCount: pageCountOf(pdf), warnings: capWarnings(warnings), provenance }
  }

  /** Compiler workers replaced since start, by why (docs/renderer.md, "Documents are typeset in workers"). */
  workerReplacements(): WorkerReplacements {
    return this.engine.workerReplacements()
  }

  close(): Promise<void> {
    return this.engine.close()
  }

  private templateHashes(templateId: string): TemplateHashes {
    let hashes = this.hashesByTemplate.get(templateId)
    if (!hashes) {
      hashes = templateHashes(this.bundle, templateId)
      this.hashesByTemplate.set(templateId, hashes)
    }
    return hashes
  }

  private validate(request: RenderRequest): {
    markdown: string
    templateId: string
    locale: Locale
    options: RenderOptions
    overrides: RenderOverrides
  } {
    if (typeof request.markdown !== "string") {
      throw new InvalidRenderRequest({ field: "markdown", message: "markdown must be a string" })
    }
    if (countCharacters(request.markdown) > MAX_MARKDOWN_CHARACTERS) {
      throw new InvalidRenderRequest({ field: "markdown", message: `markdown is longer than ${MAX_MARKDOWN_CHARACTERS} characters` })
    }
    const templateId = request.templateId
    if (!findTemplate(templateId)) {
      throw new InvalidRenderRequest({ field: "templateId", message: `unknown template '${excerpt(String(templateId), 100)}'` })
    }
    const locale = request.locale ?? "en"
    if (!isLocale(locale)) {
      throw new InvalidRenderRequest({ field: "locale", message: `unknown locale '${excerpt(String(locale), 40)}'` })
    }
    const options = decodeOptions(request.options ?? {})
    if (Either.isLeft(options)) throw invalidAt("options", options.left)
    const overrides = decodeOverrides(request.overrides ?? {})
    if (Either.isLeft(overrides)) throw invalidAt("overrides", overrides.left)
    // Read as CommonMark reads it, so what is hashed is what is rendered (a job's markdown already is).
    return { markdown: asCommonMark(request.markdown), templateId, locale, options: options.right, overrides: overrides.right }
  }
}

/** Waits for every worker of `pool` to start; a pool that cannot start is closed. */
const warm = async (pool: EnginePool): Promise<void> => {
  try {
    await pool.warm()
  } catch (error) {
    await pool.close()
    throw error
  }
}

/**
 * The code points the font set covers, as Typst computes them (typst.ts's font resolver). The
 * native compiler does not expose them: a native renderer reads them from fonts/coverage.json,
 * which this function computed (`npm run fonts:coverage`), or, when that file was computed for
 * another font set or release, asks one WebAssembly worker, started for that and closed once it has
 * answered (about a CPU-second, in parallel with the native worker's start).
 */
export const typstCoverage = async (fonts: ReadonlyArray<VerifiedFont>, bundle: ReadonlyArray<BundleFile>): Promise<Coverage> => {
  const pool = new WasmEnginePool({ size: 1, timeoutMs: 60_000, fonts, bundle, recycleAboveBytes: Number.POSITIVE_INFINITY, warmUp: false })
  await warm(pool)
  const coverage = pool.coverage
  await pool.close()
  return coverage
}

/** `catalogSha256` (contract section 11): the SHA-256 of the catalog file, as the template bundle holds it. */
const catalogSha256Of = (bundle: ReadonlyArray<BundleFile>): string => {
  const file = bundle.find((entry) => entry.path === "/catalog.json")
  if (!file) throw new Error("the template bundle has no catalog.json")
  return sha256Hex(file.text)
}

/** The template bundle, refusing to start when a catalog template's file is missing from it. */
const readCompleteBundle = (): ReadonlyArray<BundleFile> => {
  const bundle = readBundle()
  const paths = new Set(bundle.map((file) => file.path))
  const missing = catalog.templates.map((t) => templatePath(t.id)).filter((path) => !paths.has(path))
  if (missing.length > 0) throw new Error(`the template bundle is incomplete: typst-templates${missing[0]} is missing`)
  return bundle
}

/** The bounds a render is held to, named in the message of a render that passed one. */
interface RenderLimits {
  readonly timeoutMs: number
  readonly heapMiB: number
  readonly compilerMemoryMiB: number
}

/**
 * What `job.error.message` says. A render stopped by a bound names the bound, so that the author
 * of a document too large for this service's settings knows what it passed (the operator's
 * settings: PRESSROOM_RENDER_TIMEOUT_MS, PRESSROOM_RENDER_WORKER_HEAP_MB,
 * PRESSROOM_RENDER_COMPILER_MEMORY_MB).
 */
const failureMessage = (failure: CompileFailure, limits: RenderLimits): string => {
  switch (failure.reason) {
    case "timeout":
      return `the document took longer than the render time limit of ${formatSeconds(limits.timeoutMs)}`
    case "trapped":
      return "the compiler failed on the document, twice"
    case "out_of_memory":
      return `the document needs more memory than a render may use: ${limits.heapMiB} MiB to read its Markdown, ${limits.compilerMemoryMiB} MiB to typeset it`
    case "crashed":
      return "the renderer stopped while typesetting the document"
    case "rejected":
      return refusalOf(failure) ?? "the document could not be typeset"
    case "cancelled":
      return "the render was cancelled"
  }
}

const formatSeconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`
