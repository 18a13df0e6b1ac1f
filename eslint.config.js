// Lint rules: promises are never left floating, and workflow code stays deterministic (it imports only the
// workflow SDK, other workflow files and the contract).
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // test/fixtures/package is the scratch app of scripts/check-package.sh: it imports the installed package.
  // bench/peer is the scratch project of the peer that bench/temporal.ts compares with: its own dependencies.
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      ".data/**",
      "coverage/**",
      ".scratch/**",
      "docs-html/**",
      "test/fixtures/package/**",
      "bench/peer/**",
    ],
  },
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
    // Workflow code imports only the workflow SDK, other workflow files and the contract, so nothing
    // nondeterministic (Node built-ins, I/O, the runtime's own code) can reach the workflow sandbox.
    files: ["workflows/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!@temporalio/workflow$|\\./(?!.*\\.\\.)|\\.\\./src/temporal/contract\\.js$)",
              message:
                "Workflow code imports only @temporalio/workflow, files inside workflows/ and ../src/temporal/contract.js; anything else may not be deterministic.",
            },
          ],
        },
      ],
    },
  },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
);
