import { defineConfig } from "vite";

// The wasm-bindgen output lives in ../pkg (built by ./x); allow it.
export default defineConfig({
  base: "./",
  server: { fs: { allow: [".."] } },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
});
