import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * A no-restricted-imports rule that keeps one part of the repository out of others: `limits` are [group, message]
 * pairs (one rule per set of files: a later rule for the same files would replace this one, not add to it).
 */
function boundary(files, ...limits) {
  const patterns = limits.map(([group, message]) => ({ group: [group].flat(), message }));
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

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
  // Type-aware rules: a promise nobody awaits, catches or marks with `void` (a deliberate fire-and-forget) is a bug
  // waiting to lose an error; a `void` in front of something that is not a promise says nothing.
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-meaningless-void-operator': 'error',
    },
  },
  // The service logs through pino only; console is for the commands (cli/, core/cli/), training and benchmarks.
  { files: ['service/**/*.ts', 'core/**/*.ts'], ignores: ['core/cli/**'], rules: { 'no-console': 'error' } },
  // Training and the service share only core/: neither reaches into the other, and core/ depends on neither. The
  // commands' code (cli/, core/cli/: usage errors, exit codes) stays out of the service.
  boundary(['training/**/*.ts'], ['**/service/**', 'training/ may import core/, never service/ internals.']),
  boundary(
    ['service/**/*.ts'],
    ['**/training/**', 'service/ may import core/, never training/.'],
    ['**/cli/**', 'service/ never imports the commands (cli/, core/cli/): what both need belongs in core/.'],
  ),
  boundary(['core/**/*.ts'], [['**/service/**', '**/training/**'], 'core/ is shared by training and the service and depends on neither.']),
  {
    files: ['service/review/console/assets/**/*.js', 'examples/browser-form/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
