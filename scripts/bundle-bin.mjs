// Bundles the `ask-user` program into dist/bin (the library entry points stay
// unbundled ESM; see docs/decisions/060-bundled-program.md). Each command's
// modules stay behind their dynamic import as a chunk of their own, so
// `ask-user --help` loads neither protocol SDK nor the HTTP server.
import { build } from "esbuild"
import { readFileSync, rmSync } from "node:fs"

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))

// The program reads its version from package.json relative to its own module;
// in the bundle that module has moved, so the version is written in instead.
const inlineVersion = {
  name: "inline-package-version",
  setup(b) {
    b.onLoad({ filter: /[\\/]internal[\\/]packageVersion\.ts$/ }, () => ({
      contents: `export const packageVersion = ${JSON.stringify(version)}`,
      loader: "ts"
    }))
  }
}

// Chunk names carry content hashes: without a clean folder every build would leave the previous
// chunks behind, and `npm pack` would ship them.
rmSync("dist/bin", { recursive: true, force: true })

await build({
  entryPoints: { "ask-user": "src/cli/ask-user.ts" },
  outdir: "dist/bin",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  chunkNames: "chunks/[name]-[hash]",
  // Some CommonJS dependencies (the MCP SDK's ajv) call require(); give ESM chunks one.
  banner: { js: "import { createRequire as __askUserRequire } from 'node:module'; const require = __askUserRequire(import.meta.url);" },
  plugins: [inlineVersion],
  minify: true,
  keepNames: false,
  logLevel: "warning"
})
