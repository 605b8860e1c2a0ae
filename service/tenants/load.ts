import { readFile } from 'node:fs/promises';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { compileTenants, TenantsError, type Tenants } from './compile.ts';
import { tenantsFileSchema } from './schema.ts';

/** "accounts[0].forms[1].id" from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
  return out || '(root)';
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('\n');
}

// What each of jsonc-parser's error codes (by name: the enum is const, types only) means to someone editing the file by hand.
const JSON_MISTAKES: Readonly<Record<string, string>> = {
  InvalidSymbol: 'an unexpected character (text that is not a string must be quoted)',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'expected a double-quoted property name (no comma after the last property)',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':' after a property name",
  CommaExpected: "expected ',' between two elements",
  CloseBraceExpected: "expected '}' to close an object",
  CloseBracketExpected: "expected ']' to close an array",
  EndOfFileExpected: 'unexpected text after the end of the JSON value',
  InvalidCommentToken: 'a comment (JSON has none)',
  UnexpectedEndOfComment: 'a comment (JSON has none)',
  UnexpectedEndOfString: 'a string without its closing quote',
  UnexpectedEndOfNumber: 'a malformed number',
  InvalidUnicode: 'a bad \\u escape in a string',
  InvalidEscapeCharacter: 'a bad escape sequence in a string',
  InvalidCharacter: 'a line break or control character inside a string (a missing closing quote?)',
};

/** The first syntax error's place and kind, in words that quote nothing of the file. */
export function locateJsonError(text: string): { offset: number; what: string } | undefined {
  if (text.startsWith('\uFEFF')) return { offset: 0, what: 'the file starts with a byte-order mark (save it as UTF-8 without one)' };
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return undefined;
  const code = printParseErrorCode(first.error);
  return { offset: first.offset, what: JSON_MISTAKES[code] ?? code };
}

/** "line 3, column 15" (1-based) of an offset into the text. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - (before.lastIndexOf('\n') + 1) + 1}`;
}

/** Parses and checks tenants JSON text; every error message names the place in the file. */
export function parseTenants(text: string, source: string): Tenants {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the text around the error, e.g. an API key pasted unquoted as a hash,
    // and this message reaches the service's log and the CLI's stderr. Only the place and the kind are told.
    const where = locateJsonError(text);
    throw new TenantsError(
      where === undefined
        ? `${source}: not valid JSON`
        : `${source}: not valid JSON at ${lineAndColumn(text, where.offset)}: ${where.what}`,
    );
  }
  const result = tenantsFileSchema.safeParse(json);
  if (!result.success) throw new TenantsError(`${source}:\n${formatIssues(result.error.issues)}`);
  try {
    return compileTenants(result.data);
  } catch (err) {
    throw new TenantsError(`${source}:\n${(err as Error).message}`);
  }
}

export async function loadTenantsFile(path: string): Promise<{ tenants: Tenants; text: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TenantsError(`${path}: cannot read the tenants file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return { tenants: parseTenants(text, path), text };
}
