import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'models/**', 'data/**', 'coverage/**', '.tmp/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The service logs through pino only; console is for CLIs, training and benchmarks.
  { files: ['service/**/*.ts'], ignores: ['service/**/cli.ts', 'service/**/cli/**'], rules: { 'no-console': 'error' } },
  { files: ['service/review/console/**/*.js', 'examples/browser-form/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);
