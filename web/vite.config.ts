// The build the server embeds (`cardhouse serve --web`): three files with fixed names in
// dist/ (index.html, app.js, app.css), committed, so that `cargo build` needs no Node.
// `npm run build` regenerates them; scripts/test-all.sh checks that they are up to date.
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: false,
    cssCodeSplit: false,
    assetsInlineLimit: 0,
    rollupOptions: {
      output: {
        entryFileNames: "app.js",
        chunkFileNames: "app-[name].js",
        assetFileNames: "app[extname]",
        inlineDynamicImports: true,
      },
    },
  },
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
  },
});
