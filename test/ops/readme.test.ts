/**
 * The configuration tables are the same list as the schemas: every
 * variable either process reads has its row in docs/configuration.md,
 * and no row there names a variable that nothing reads. On failure the message lists what
 * to add or remove; `npm start -- --help --markdown` prints the tables to paste.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { CONSOLE_SCHEMA } from '../../console/config.js';
import { CORE_SCHEMA } from '../../core/config.js';
import { DASHBOARD_SCHEMA } from '../../dashboard/config.js';
import { GATEWAY_SCHEMA } from '../../gateway/config.js';
import { schemaNames } from '../../runtime/env-schema.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: docs/configuration.md tables');

/** The text of docs/configuration.md, which must open with its "# Configuration" title. */
function configurationSection(text: string): string {
  return /^# Configuration\s*$/m.test(text) ? text : '';
}

/** Variables named in the first column of the file's tables, by table ("## The core", ...). */
function tableRows(section: string): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  let heading = '';
  for (const line of section.split('\n')) {
    const title = /^## (.+)$/.exec(line);
    if (title) heading = title[1]!.trim().toLowerCase();
    const row = /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line);
    if (row) {
      if (!tables.has(heading)) tables.set(heading, new Set());
      tables.get(heading)!.add(row[1]!);
    }
  }
  return tables;
}

test(
  'docs/configuration.md lists every variable of the core, the gateway, the dashboard and the console, in ' +
    'their own tables, and no other',
  () => {
    const section = configurationSection(readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8'));
    assert.ok(section !== '', 'docs/configuration.md opens with "# Configuration"');
    const tables = tableRows(section);
    const table = (word: string) =>
      [...tables.entries()].find(([heading]) => heading.includes(word))?.[1] ?? new Set<string>();
    const problems: string[] = [];
    for (const [label, schema] of [
      ['core', CORE_SCHEMA],
      ['gateway', GATEWAY_SCHEMA],
      ['dashboard', DASHBOARD_SCHEMA],
      ['console', CONSOLE_SCHEMA],
    ] as const) {
      const rows = table(label);
      const names = schemaNames(schema);
      const missing = names.filter((name) => !rows.has(name));
      const unknown = [...rows].filter((name) => !names.includes(name));
      if (missing.length > 0) problems.push(`the ${label} table lacks ${missing.join(', ')}`);
      if (unknown.length > 0)
        problems.push(`the ${label} table lists ${unknown.join(', ')}, which the ${label} does not read`);
    }
    assert.equal(
      problems,
      [],
      `docs/configuration.md: ${problems.join('; ')} (npm start -- --help --markdown prints the tables)`,
    );
  },
);

test.run();
