/**
 * No prompt names a candidate of the data. Every piece of prose the engine and the model
 * providers can send to a model (string and template literals in src-main/engine and
 * src-main/llm, the JSON the engine ships such as Pearl's seed library, and every registered
 * tool's description and argument schema) is searched for the names the DQA development
 * subset holds: trade nodes, countries, home nodes, goods, building types and building ids,
 * read from the fixtures' dumps and question files when the test runs. An example value that
 * is a real answer ("krakow" is question L1's) leans the model towards it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { dqaRoot, readBuildingQuestions, readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { dialectNotes } from '../../../src-main/engine/dialects';
import { registeredTools, toolSpecFor } from '../../../src-main/engine/tools/registry';
import { repoRoot } from '../../support/fixtures';

/**
 * Every name of the development data with what it is. Country tags (SWE, ONE, GOT) are kept as
 * written and matched in capitals only, since "one" and "got" are words; every other name is
 * kept in lower case and matched in any case.
 */
function dqaNames(): Map<string, string> {
  const root = dqaRoot();
  const names = new Map<string, string>();
  const add = (name: string | number, what: string): void => {
    const text = String(name).trim();
    names.set(what === 'a country' ? text : text.toLowerCase(), what);
  };
  const locating = readLocatingQuestions(root);
  for (const dump of new Set(locating.map((question) => question.rdb))) {
    const data = loadLocatingDump(readDumpText(root, 'locating', dump), 'relational', dump);
    for (const node of data.tradeNodes) add(node.name, 'a trade node');
    for (const country of data.countries) add(country.name, 'a country');
  }
  for (const question of locating) {
    add(question.country, 'a country');
    add(question.home, 'a home node');
    add(question.answer, 'an annotated answer');
  }
  const building = readBuildingQuestions(root);
  for (const dump of new Set(building.map((question) => question.rdb))) {
    const data = loadBuildingDump(readDumpText(root, 'building', dump), 'relational', dump);
    for (const goods of data.goods) add(goods.name, 'a goods');
    for (const record of data.buildings) {
      add(record.name, 'a building type');
      add(record.id, 'a building id');
    }
  }
  for (const question of building) {
    add(question.country, 'a country');
    add(question.goods, 'a goods');
    add(question.answer, 'an annotated answer');
  }
  return names;
}

/**
 * Names that are also ordinary words (or numbers) our prose uses in their ordinary sense: "the
 * tools offered", "the paper's settings", "Write ONE query", "Plan*RAG", "HTTP 404". They count
 * only where they stand as a value — in quotes, or after "e.g." — as an example would.
 */
const usedAsWords = new Set(['tools', 'paper', 'lead', 'ONE', 'RAG']);
const isOrdinary = (name: string): boolean => usedAsWords.has(name) || /^\d+$/.test(name);

interface Prose {
  where: string;
  text: string;
}

function sourceFiles(folder: string, extensions: readonly string[]): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path, extensions);
    return extensions.some((extension) => path.endsWith(extension)) ? [path] : [];
  });
}

/** The string and template literal pieces of a TypeScript file that read as prose (they hold a space). */
function literalsOf(path: string): Prose[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Prose[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (/\s/.test(node.text)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push({ where: `${relative(repoRoot, path)}:${line + 1}`, text: node.text });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function jsonStringsOf(path: string): Prose[] {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(JSON.parse(readFileSync(path, 'utf8')));
  return strings.map((text) => ({ where: relative(repoRoot, path), text }));
}

function toolTexts(): Prose[] {
  return registeredTools().flatMap((tool) =>
    Object.values(dialectNotes).map((dialect) => ({ where: `tool ${tool.name} (${dialect.label})`, text: JSON.stringify(toolSpecFor(tool, dialect.label)) })),
  );
}

function everyProse(): Prose[] {
  const folders = ['src-main/engine', 'src-main/llm'].map((folder) => join(repoRoot, folder));
  return [
    ...folders.flatMap((folder) => sourceFiles(folder, ['.ts']).flatMap(literalsOf)),
    ...folders.flatMap((folder) => sourceFiles(folder, ['.json']).flatMap(jsonStringsOf)),
    ...toolTexts(),
  ];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The DQA names a text holds: distinctive names as whole words, ordinary ones only as a quoted or "e.g." value. */
export function namesIn(text: string, names: ReadonlyMap<string, string>): string[] {
  const lower = text.toLowerCase();
  const words = new Set(lower.match(/[\p{L}\p{N}_]+/gu) ?? []);
  const asWritten = new Set(text.match(/[\p{L}\p{N}_]+/gu) ?? []);
  const found: string[] = [];
  for (const [name, what] of names) {
    if (isOrdinary(name)) {
      if (!lower.includes(name.toLowerCase())) continue;
      const asValue = new RegExp(`(["'\`]${escape(name)}["'\`])|(e\\.g\\.,?\\s+${escape(name)}\\b)`, what === 'a country' ? '' : 'i');
      if (asValue.test(text)) found.push(name);
    } else if (what === 'a country') {
      if (asWritten.has(name)) found.push(name);
    } else if (/^[\p{L}\p{N}_]+$/u.test(name) ? words.has(name) : lower.includes(name)) {
      found.push(name);
    }
  }
  return found;
}

describe('prompt examples name nothing of the DQA data', () => {
  const names = dqaNames();

  it('reads the names from the fixtures: trade nodes, countries, goods, building types and ids', () => {
    expect(names.get('krakow')).toBeDefined();
    expect(names.get('baltic_sea')).toBe('a home node');
    expect(names.get('SWE')).toBe('a country');
    expect(names.get('furniture')).toBe('a goods');
    expect(names.get('1485')).toBeDefined();
    expect(names.size).toBeGreaterThan(1000);
  });

  it('finds a name where an example would put it, and leaves ordinary words in prose alone', () => {
    expect(namesIn('Reply {"answer": <e.g. "krakow", 5.2>}', names)).toEqual(['krakow']);
    expect(namesIn('a quoted string ("baltic_sea", "local value")', names)).toContain('baltic_sea');
    expect(namesIn('the chosen building, e.g. 1485', names)).toEqual(['1485']);
    expect(namesIn('Reply by calling one of these tools (HTTP 404 means no route)', names)).toEqual([]);
    expect(namesIn('the value "tools" stands for', names)).toEqual(['tools']);
    expect(namesIn('Assume you rule SWE', names)).toEqual(['SWE']);
    expect(namesIn('exactly one of the reply forms; write ONE query (Plan*RAG)', names)).toEqual([]);
  });

  it('no prompt text, tool description or shipped JSON of the engine and the model layer holds one', () => {
    const prose = everyProse();
    // The walk reaches the prompts it is meant to guard.
    expect(prose.some((piece) => piece.where.startsWith('src-main/engine/techniques/plan-dag/prompts.ts'))).toBe(true);
    expect(prose.some((piece) => piece.where.startsWith('src-main/engine/techniques/dellma/prompts.ts'))).toBe(true);
    expect(prose.some((piece) => piece.where.startsWith('tool answer'))).toBe(true);
    const hits = prose.flatMap((piece) => namesIn(piece.text, names).map((name) => `${piece.where}: "${name}" (${names.get(name) ?? ''}) in ${JSON.stringify(piece.text.slice(0, 120))}`));
    expect(hits).toEqual([]);
  });
});
