// Lint: eslint + typescript-eslint, because the rule we most need, no-floating-promises, needs the
// type checker. Formatting is prettier's job (.prettierrc.json), so no stylistic rules here.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The browser globals the dashboard's scripts use (eslint's own list lives in a package we do not need). */
const browserGlobals = Object.fromEntries(
  [
    "window",
    "document",
    "fetch",
    "console",
    "localStorage",
    "sessionStorage",
    "location",
    "history",
    "URL",
    "URLSearchParams",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "HTMLElement",
    "Event",
    "CustomEvent",
    "navigator",
    "requestAnimationFrame",
    "Node",
    "CSS",
    "confirm",
    "alert",
    "FormData",
    "Headers",
    "AbortController",
    "EventSource",
    "performance",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "test/.snippets/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
      "@typescript-eslint/no-explicit-any": "error",
      // Input rules match control characters on purpose (NUL, C0 in headers): that is their job.
      "no-control-regex": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Tests may hold loosely typed fixtures and driver rows.
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The dashboard's browser scripts are plain JavaScript outside the TypeScript project: no type-aware rules.
    files: ["adapters/http/dashboard/public/**/*.js", "*.js"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: browserGlobals },
  },
);
