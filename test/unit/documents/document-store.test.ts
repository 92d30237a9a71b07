/**
 * Documents attached to a notebook: kept in the workspace database with the notebook (they
 * survive reopening it), refused with the reason when a file cannot be one (empty, too large,
 * binary, not UTF-8), and bounded when DeLLMa reads them into its context.
 */
import { describe, expect, it } from 'vitest';
import { documentLimits } from '../../../src-main/contract/documents';
import { describeDocumentUse, documentContext } from '../../../src-main/engine/techniques/dellma/documents';
import { openAppDatabase } from '../../../src-main/workspace/app-database';
import { DocumentStore, documentName, readDocumentBytes } from '../../../src-main/workspace/document-store';
import { NotebookStore } from '../../../src-main/workspace/notebook-store';
import { TrashStore } from '../../../src-main/workspace/trash-store';
import { fixedEnvironment } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function open(directory = tempDir()) {
  const database = openAppDatabase(directory);
  const environment = fixedEnvironment();
  return { database, directory, notebooks: new NotebookStore(database, environment), documents: new DocumentStore(database, environment) };
}

describe('DocumentStore', () => {
  it('attaches, lists in order, reads back and removes; the documents survive reopening the workspace', () => {
    const { database, directory, notebooks, documents } = open();
    const notebook = notebooks.create('Fruit');
    const other = notebooks.create('Other');
    const report = documents.add(notebook.id, '/home/analyst/reports/outlook.md', utf8('# Outlook\nPrices rise.\n'));
    documents.add(notebook.id, 'notes.txt', utf8('Frost in March.'));
    documents.add(other.id, 'elsewhere.txt', utf8('Not this notebook.'));
    expect(report).toMatchObject({ notebookId: notebook.id, name: 'outlook.md', chars: 23, bytes: 23 });
    expect(report.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(documents.get(report.id).text).toBe('# Outlook\nPrices rise.\n');
    expect(documents.forRun(notebook.id)).toEqual([
      { name: 'outlook.md', text: '# Outlook\nPrices rise.\n' },
      { name: 'notes.txt', text: 'Frost in March.' },
    ]);
    documents.remove(report.id);
    expect(documents.list(notebook.id).map((document) => document.name)).toEqual(['notes.txt']);
    expect(() => documents.remove(report.id)).toThrow(/No document/);
    database.close();

    const reopened = new DocumentStore(openAppDatabase(directory), fixedEnvironment());
    expect(reopened.forRun(notebook.id)).toEqual([{ name: 'notes.txt', text: 'Frost in March.' }]);
    expect(reopened.list(other.id).map((document) => document.name)).toEqual(['elsewhere.txt']);
  });

  it('refuses a second document of the same name, more than the limit, and an unknown notebook', () => {
    const { notebooks, documents } = open();
    const notebook = notebooks.create('Fruit');
    documents.add(notebook.id, 'a.txt', utf8('one'));
    expect(() => documents.add(notebook.id, 'a.txt', utf8('two'))).toThrow(/"a.txt" is already attached/);
    for (let n = 1; n < documentLimits.perNotebook; n++) documents.add(notebook.id, `n${n}.txt`, utf8(`text ${n}`));
    expect(() => documents.add(notebook.id, 'one-too-many.txt', utf8('x'))).toThrow(new RegExp(`at most ${documentLimits.perNotebook} documents`));
    expect(() => documents.add('no-such-notebook', 'a.txt', utf8('x'))).toThrow(/No notebook no-such-notebook/);
  });

  it('copies the documents with a duplicated notebook, and emptying the trash removes a deleted notebook with its documents', () => {
    const { database, notebooks, documents } = open();
    const notebook = notebooks.create('Fruit');
    documents.add(notebook.id, 'report.txt', utf8('The report.'));
    const copy = notebooks.duplicate(notebook.id);
    documents.copy(notebook.id, copy.id);
    expect(documents.forRun(copy.id)).toEqual([{ name: 'report.txt', text: 'The report.' }]);
    notebooks.delete(notebook.id);
    expect(new TrashStore(database).empty(new Set())).toMatchObject({ notebooks: 1 });
    expect(documents.list(notebook.id)).toEqual([]);
    expect(documents.list(copy.id)).toHaveLength(1);
  });
});

describe('readDocumentBytes', () => {
  it('reads UTF-8 text, dropping a byte-order mark', () => {
    expect(readDocumentBytes('a.md', utf8('\uFEFFcafé – 10 °C'))).toBe('café – 10 °C');
  });

  it.each([
    ['empty', new Uint8Array(0), /"f.txt" is empty/],
    ['only white space', utf8(' \n\t '), /has only white space/],
    ['binary (a NUL byte, as in a PDF)', new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]), /looks binary \(it contains NUL bytes\)/],
    ['Latin-1, not UTF-8', new Uint8Array([0x63, 0x61, 0x66, 0xe9]), /is not UTF-8 text/],
    ['over the size limit', new Uint8Array(documentLimits.maxBytes + 1).fill(0x61), /is 1,000,001 bytes; documents are limited to 1,000,000 bytes/],
  ])('refuses a file that is %s, saying why', (_what, bytes, message) => {
    expect(() => readDocumentBytes('f.txt', bytes)).toThrow(message);
  });

  it('accepts a file of exactly the size limit', () => {
    expect(readDocumentBytes('f.txt', new Uint8Array(documentLimits.maxBytes).fill(0x61))).toHaveLength(documentLimits.maxBytes);
  });

  it('keeps the last part of a path as the name, without control characters', () => {
    expect(documentName('C:\\reports\\fruit\u0007.txt')).toBe('fruit.txt');
    expect(() => documentName('/tmp/')).toThrow(/needs a name/);
  });
});

describe('documentContext (what DeLLMa reads)', () => {
  it('keeps documents within the budget whole and names them', () => {
    const { text, used } = documentContext([{ name: 'notes.txt', text: 'Frost in March.' }], 100);
    expect(text).toBe('Document "notes.txt" (attached by the analyst):\nFrost in March.');
    expect(used).toEqual([{ name: 'notes.txt', chars: 15, usedChars: 15, truncated: false }]);
    expect(describeDocumentUse(used)).toBe('notes.txt (15 characters)');
  });

  it('cuts a long document with a visible note of how many characters were used; a short one leaves its share to the next', () => {
    const long = 'x'.repeat(1000);
    const { text, used } = documentContext(
      [
        { name: 'short.txt', text: 'abc' },
        { name: 'long.txt', text: long },
      ],
      100,
    );
    // short takes 3 of its 50; long gets the remaining 97.
    expect(used).toEqual([
      { name: 'short.txt', chars: 3, usedChars: 3, truncated: false },
      { name: 'long.txt', chars: 1000, usedChars: 97, truncated: true },
    ]);
    expect(text).toContain(`Document "long.txt" (attached by the analyst):\n${'x'.repeat(97)}\n[Document truncated: the first 97 of 1,000 characters are used.]`);
    expect(text).not.toContain('x'.repeat(98));
    expect(describeDocumentUse(used)).toBe('short.txt (3 characters); long.txt (97 of 1,000 characters, truncated)');
  });

  it('shares the budget evenly between long documents and never splits a surrogate pair', () => {
    const { used, text } = documentContext(
      [
        { name: 'a', text: 'a'.repeat(500) },
        { name: 'b', text: `${'b'.repeat(49)}😀tail` },
      ],
      100,
    );
    expect(used.map((document) => document.usedChars)).toEqual([50, 49]);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('is empty without documents', () => {
    expect(documentContext([])).toEqual({ text: '', used: [] });
  });
});
