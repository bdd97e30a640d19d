declare module "commonmark-spec" {
  const spec: {
    readonly tests: ReadonlyArray<{ readonly markdown: string; readonly html: string; readonly number: number; readonly section: string }>
  }
  export default spec
}
