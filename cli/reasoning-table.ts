import { loadModelFolder } from '../core/classifier/load.ts';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError, wholeNumber } from '../core/cli/usage.ts';
import { readLabelledFile } from '../training/data/loaders.ts';

const HELP = `npx tsx cli/reasoning-table.ts --model models/<version> --data <file> --prefix <id prefix> [--prefix ...] [--first 25]
Prints a markdown table of the model's reasoning, as the service answers it, for the first --first records of
--data whose id starts with each --prefix (in file order), marking the wrong verdicts: the sentences of
docs/model.md, generated from the model rather than written by hand.`;

async function run(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    data: { type: 'string' },
    prefix: { type: 'string', multiple: true },
    first: { type: 'string', default: '25' },
  });
  if (!values.model || !values.data || !values.prefix?.length)
    throw new UsageError('--model, --data and at least one --prefix are required');
  const first = wholeNumber(values.first, '--first', 1, 10_000);
  const model = await loadModelFolder(values.model);
  const { records } = readLabelledFile(values.data);
  console.log(`| id | label | reasoning (model ${model.modelVersion}) |`);
  console.log('|---|---|---|');
  for (const prefix of values.prefix) {
    // A prefix is followed by the record's number: hk-l takes hk-l01 but not hk-ll01.
    const chosen = records.filter((r) => r.id.startsWith(prefix) && /^\d/.test(r.id.slice(prefix.length))).slice(0, first);
    for (const r of chosen) {
      const v = model.classify(r.fields);
      const wrong = v.status !== r.label ? ' (wrong verdict)' : '';
      console.log(`| \`${r.id}\` | ${r.label} | ${v.reasoning.replaceAll('|', '\\|')}${wrong} |`);
    }
  }
}

runCommand({ name: 'reasoning-table', usage: HELP, main: run });
