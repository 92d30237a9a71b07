import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDwb } from '../../support/cli';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('dwb run --technique autoplan --playbook', () => {
  it('places the playbook between the rules and the question, decodes greedily and opens the notebook with the playbook as a plan cell', async () => {
    const dir = tempDir();
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', dir);
    writeFileSync(join(dir, 'question.txt'), 'Where should SWE place its merchant?');
    writeFileSync(join(dir, 'rules.txt'), 'Profit is (local_value + ingoing) times the power share.');
    writeFileSync(join(dir, 'playbook.md'), '1. Query the upstream nodes of the home node.\n2. Finish with the best one.\n');
    const server = await startScriptedOpenAiServer([
      { content: 'Step 1: query the upstream nodes', toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea'" } }] },
      { content: 'Step 2: finish', toolCalls: [{ name: 'answer', arguments: { decision: 'lubeck', rationale: 'upstream' } }] },
    ]);
    servers.push(server);
    const out = join(dir, 'run');
    const result = await runDwb(['run', '--connection', `sqlite:${database}`, '--question-file', join(dir, 'question.txt'), '--rules-file', join(dir, 'rules.txt'), '--technique', 'autoplan', '--playbook', join(dir, 'playbook.md'), '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--simulator', 'off', '--whatif', 'off', '--out', out]);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toContain('lubeck');
    for (const request of server.chatRequests()) {
      expect(request.chat.temperature).toBe(0);
      const task = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
      expect(task.indexOf('# Business rules')).toBeLessThan(task.indexOf('# Playbook'));
      expect(task.indexOf('1. Query the upstream nodes of the home node.')).toBeGreaterThan(task.indexOf('# Playbook'));
      expect(task.indexOf('# Playbook')).toBeLessThan(task.indexOf('# Question'));
      expect(messageText(request.chat.messages[0] ?? { role: 'system', content: '' })).toMatch(/name the playbook step|playbook step you are on/);
    }
    const notebook = JSON.parse(readFileSync(join(out, 'notebook.json'), 'utf8')) as { cells: { kind: string; source: string; data: { steps?: string[] } }[] };
    const kinds = notebook.cells.map((cell) => cell.kind);
    expect(kinds.indexOf('plan')).toBeLessThan(kinds.indexOf('thought'));
    expect(notebook.cells.find((cell) => cell.kind === 'plan')?.data.steps).toEqual(['Query the upstream nodes of the home node.', 'Finish with the best one.']);
    expect(notebook.cells.filter((cell) => cell.kind === 'thought').map((cell) => cell.source)).toEqual(['Step 1: query the upstream nodes', 'Step 2: finish']);
    // The run log records the playbook followed: a plain text file has no version, only its text and sha256.
    const text = '1. Query the upstream nodes of the home node.\n2. Finish with the best one.';
    const start = (JSON.parse(readFileSync(join(out, 'run-log.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { event: { playbook?: unknown } }).event;
    expect(start.playbook).toEqual({ version: null, sha256: createHash('sha256').update(text).digest('hex'), text });
  }, 120_000);

  it('refuses --technique autoplan without a playbook, before any model call: it would run plain ReAct under AutoPlan\'s name', async () => {
    const dir = tempDir();
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', dir);
    const server = await startScriptedOpenAiServer([{ toolCalls: [{ name: 'answer', arguments: { decision: 'lubeck', rationale: 'upstream' } }] }]);
    servers.push(server);
    writeFileSync(join(dir, 'question.txt'), 'Where should SWE place its merchant?');
    const out = join(dir, 'run');
    const result = await runDwb(['run', '--connection', `sqlite:${database}`, '--question-file', join(dir, 'question.txt'), '--technique', 'autoplan', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--simulator', 'off', '--whatif', 'off', '--out', out]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('AutoPlan follows a learned playbook and has none: no --playbook given. Train one');
    expect(server.chatRequests()).toHaveLength(0);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
