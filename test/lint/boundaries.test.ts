import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');
// The files linted here do not exist, so the type-aware rules (which need them in the TypeScript project) are off.
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-meaningless-void-operator': 'off' },
  },
});

async function restrictedImports(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries between training/, service/, core/ and the commands', () => {
  it('refuses a training → service import', async () => {
    const messages = await restrictedImports('training/cli/x.ts', "import { buildApp } from '../../service/app.ts';\nvoid buildApp;\n");
    expect(messages).toEqual([expect.stringContaining('never service/')]);
  });

  it('refuses a service → training import', async () => {
    const messages = await restrictedImports('service/verify/x.ts', "import { train } from '../../training/pipeline.ts';\nvoid train;\n");
    expect(messages).toEqual([expect.stringContaining('never training/')]);
  });

  it('refuses core → service and core → training imports', async () => {
    const src =
      "import { buildApp } from '../../service/app.ts';\nimport { train } from '../../training/pipeline.ts';\nvoid buildApp;\nvoid train;\n";
    expect(await restrictedImports('core/features/x.ts', src)).toHaveLength(2);
  });

  it('refuses a service → core/cli and a service → cli import', async () => {
    const src =
      "import { CommandError } from '../../core/cli/usage.ts';\nimport { openStore } from '../../cli/lib/open-store.ts';\nvoid CommandError;\nvoid openStore;\n";
    expect(await restrictedImports('service/review/x.ts', src)).toEqual([
      expect.stringContaining('never imports the commands'),
      expect.stringContaining('never imports the commands'),
    ]);
  });

  it('lets the commands import core/cli and the service', async () => {
    const src =
      "import { CommandError } from '../core/cli/usage.ts';\nimport { buildApp } from '../service/app.ts';\nvoid CommandError;\nvoid buildApp;\n";
    expect(await restrictedImports('cli/x.ts', src)).toEqual([]);
  });

  it('lets training and the service import core', async () => {
    const src = "import { FeatureExtractor } from '../../core/features/index.ts';\nvoid FeatureExtractor;\n";
    expect(await restrictedImports('training/cli/x.ts', src)).toEqual([]);
    expect(await restrictedImports('service/verify/x.ts', src)).toEqual([]);
  });
});
