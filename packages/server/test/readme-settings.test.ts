/**
 * The README and the code agree on the settings: its tables list every setting `serve` and
 * `devnet-ledger` read, no other, each with the default the code uses; its sentence on what
 * `migrate` and `admin` read names exactly the flags their help lists; and its layout names
 * every package of the workspace, no other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVNET_LEDGER_SETTINGS } from '@poolparty/devnet-ledger/settings';
import { describe, expect, it } from 'vitest';
import {
  defaultLabel,
  SETTING_DEFINITIONS,
  STORE_SETTING_KEYS,
  settingDefinitionsOf,
  settingHelp,
} from '../src/config.js';

const REPOSITORY = join(import.meta.dirname, '../../..');
const README = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
/** Where the README's `CANTON_*` row sends the reader for each Canton setting. */
const CANTON_DOC = readFileSync(join(REPOSITORY, 'docs/canton.md'), 'utf8');
const WILDCARD = /^([A-Z_]+)\*$/;

interface Row {
  /** The settings the row names, e.g. `PORT` and `HOST`, or `CANTON_*`. */
  readonly names: readonly string[];
  readonly defaults: string;
}

/** The rows of every README table headed `setting | default | meaning`, table by table. */
function settingTables(markdown: string): Row[][] {
  const tables: Row[][] = [];
  let current: Row[] | null = null;
  for (const line of markdown.split('\n').map((text) => text.trim())) {
    const cells = line.startsWith('|')
      ? line
          .slice(1, -1)
          .split('|')
          .map((c) => c.trim())
      : null;
    if (cells === null) current = null;
    else if (cells[0] === 'setting' && cells[1] === 'default') {
      current = [];
      tables.push(current);
    } else if (current !== null && !/^-+$/.test(cells[0] ?? '')) {
      const names = [...(cells[0] ?? '').matchAll(/`([A-Z_*]+)`/g)].map((match) => match[1] ?? '');
      current.push({ names, defaults: cells[1] ?? '' });
    }
  }
  return tables;
}

const tables = settingTables(README);
const ledgerTable = tables.find((rows) =>
  rows.some((row) => row.names.includes('POOLPARTY_DEVNET_LEDGER_PORT')),
);
const serveTable = tables.find((rows) => rows.some((row) => row.names.includes('PORT')));

/** Each setting named by a row, with the row; a wildcard row stands for the code's matches. */
function documented(rows: readonly Row[], codeNames: readonly string[]): Map<string, Row> {
  const byName = new Map<string, Row>();
  for (const row of rows) {
    for (const name of row.names) {
      const prefix = WILDCARD.exec(name)?.[1];
      const covered = prefix ? codeNames.filter((code) => code.startsWith(prefix)) : [name];
      for (const code of covered) byName.set(code, row);
    }
  }
  return byName;
}

/** A default the code has: the README's cell shows it in backticks, or says it is off. */
function expectDefault(env: string, value: unknown, row: Row | undefined): void {
  const label = defaultLabel(value);
  if (label === 'unset' || label === 'none') {
    expect(row?.defaults, env).not.toMatch(/^`/);
  } else {
    expect(row?.defaults, env).toContain(`\`${label}\``);
  }
}

describe("the README's settings tables", () => {
  it('has one for serve and one for devnet-ledger', () => {
    expect(serveTable).toBeDefined();
    expect(ledgerTable).toBeDefined();
    expect(serveTable).not.toBe(ledgerTable);
  });

  it('lists every setting serve reads, and no other, with its default', () => {
    const codeNames = SETTING_DEFINITIONS.map((definition) => definition.env);
    const byName = documented(serveTable ?? [], codeNames);
    expect([...byName.keys()].sort()).toEqual([...codeNames].sort());
    for (const definition of SETTING_DEFINITIONS) {
      const row = byName.get(definition.env);
      if (row?.names.some((name) => WILDCARD.test(name))) {
        // The row points to docs/canton.md, which must name each setting it stands for.
        expect(CANTON_DOC, definition.env).toContain(definition.env);
      } else {
        expectDefault(definition.env, definition.defaultValue, row);
      }
    }
  });

  it('lists every setting devnet-ledger reads, and no other, with its default', () => {
    const codeNames = DEVNET_LEDGER_SETTINGS.map((setting) => setting.env);
    const byName = documented(ledgerTable ?? [], codeNames);
    expect([...byName.keys()].sort()).toEqual([...codeNames].sort());
    for (const setting of DEVNET_LEDGER_SETTINGS) {
      expectDefault(setting.env, setting.defaultValue, byName.get(setting.env));
    }
  });
});

describe('what the README says migrate and admin read', () => {
  it('names exactly the store flags their help lists', () => {
    const sentence = /`migrate` and `admin` read only ([^.]+)\./.exec(
      README.replace(/\n\s*/g, ' '),
    );
    expect(sentence).not.toBeNull();
    const pairs = [...(sentence?.[1] ?? '').matchAll(/`--([a-z-]+)`\/`([A-Z_]+)`/g)].map(
      ([, flag, env]) => `--${flag} ${env}`,
    );
    const store = settingDefinitionsOf([...STORE_SETTING_KEYS, 'environment']);
    expect(pairs.sort()).toEqual(store.map((d) => `--${d.flag} ${d.env}`).sort());
  });
});

describe('a flag’s help', () => {
  it('names its variable and its default', () => {
    const port = SETTING_DEFINITIONS.find((definition) => definition.env === 'PORT');
    expect(port && settingHelp(port)).toBe('TCP port to listen on [PORT; default: 8787]');
    const ledgerPort = DEVNET_LEDGER_SETTINGS[0];
    expect(settingHelp(ledgerPort)).toMatch(/\[POOLPARTY_DEVNET_LEDGER_PORT; default: 2975\]$/);
  });
});

describe('the README layout', () => {
  it('names every package of the workspace, and no other', () => {
    const layout = /## Layout\n\n```\npackages\/\n([\s\S]*?)\n(?=\S)/.exec(README)?.[1] ?? '';
    const listed = [...layout.matchAll(/^ {2}([a-z-]+)\/ /gm)].map(([, name]) => name);
    const packages = readdirSync(join(REPOSITORY, 'packages'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(listed.sort()).toEqual(packages.sort());
  });
});
