import { defineConfig } from "vite";
import { resolve } from "node:path";

// The wasm-bindgen output lives in ../pkg (built by ./x); allow it.
// cfg-test.html is the CFG panel's test fixture (tests/e2e/cfg.test.mjs).
export default defineConfig({
  base: "./",
  server: { fs: { allow: [".."] } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    rollupOptions: {
      input: {
        main: resolve(__dirname, "index.html"),
        "cfg-test": resolve(__dirname, "cfg-test.html"),
      },
    },
  },
});
