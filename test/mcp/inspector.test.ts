/**
 * A client no one here wrote (issue 35): the MCP Inspector's CLI, @modelcontextprotocol/inspector-cli
 * pinned as a devDependency (v1, the last line that runs on Node 20), drives /mcp over Streamable
 * HTTP with a bearer header, as a user would run it from a shell: it lists the tools and calls
 * convert_markdown, whose PDF is read back. On each database.
 */
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { promisify } from "node:util"
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { childEnv } from "../helpers/child-env.ts"
import { pdfText } from "../helpers/pdf.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"

const INSPECTOR = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/cli.js")

t.test("the MCP Inspector's CLI", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const owner = await createAccount(server)
    /** The Inspector's answer to one method, which it prints as JSON on stdout. */
    const inspect = async (...args: Array<string>) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [INSPECTOR, "--cli", `${server.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${owner.key}`, ...args],
        // From its own folder: 1.0.3 looks for its package.json by a path relative to the working
        // directory (existsSync("../package.json")) but imports it relative to its module, and fails
        // from anywhere else ("Cannot find module .../@modelcontextprotocol/package.json").
        { cwd: dirname(INSPECTOR), env: childEnv(), timeout: 120_000 }
      )
      return JSON.parse(stdout)
    }

    await t.test("tools/list", async (t) => {
      const { tools } = await inspect("--method", "tools/list")
      t.ok(
        tools.some((tool: any) => tool.name === "convert_markdown" && tool.inputSchema.required.includes("markdown")),
        "convert_markdown, which requires markdown"
      )
      t.equal(tools.length, 11, "all eleven tools")
    })

    await t.test("tools/call convert_markdown", async (t) => {
      const result = await inspect(
        "--method",
        "tools/call",
        "--tool-name",
        "convert_markdown",
        "--tool-arg",
        "markdown=# Through the Inspector\n\nA client from elsewhere."
      )
      t.not(result.isError, true)
      t.equal(result.structuredContent.job.status, "succeeded")
      t.equal(result.structuredContent.job.provenance.channel, "mcp_v1")
      const response = await fetch(result.structuredContent.link.href)
      t.equal(response.status, 200)
      t.match(await pdfText(new Uint8Array(await response.arrayBuffer())), /Through the Inspector.*client from elsewhere/s)
    })
  })
)
