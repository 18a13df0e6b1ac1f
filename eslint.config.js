// Lint rules: promises are never left floating, and workflow code stays deterministic (no Node built-ins or I/O).
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeBuiltins = [
  "fs",
  "path",
  "os",
  "child_process",
  "net",
  "http",
  "https",
  "crypto",
  "worker_threads",
  "dns",
  "url",
  "stream",
  "events",
  "util",
  "timers",
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".data/**", "coverage/**", ".scratch/**"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    files: ["workflows/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [...nodeBuiltins.flatMap((name) => [name, `node:${name}`]), "pg", "better-sqlite3", "openai"].map(
            (name) => ({ name, message: "Workflow code must stay deterministic: no Node built-ins or I/O modules." }),
          ),
          patterns: [{ group: ["node:*"], message: "Workflow code must not import Node built-ins." }],
        },
      ],
    },
  },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
);
