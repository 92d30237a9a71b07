import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectSocket, startServe } from '../support/serve';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();

describe('autosave durability', () => {
  it('never loses or corrupts an acknowledged cell edit when the server is killed with SIGKILL', async () => {
    const workspace = tempDir();
    // Different kill moments: early, mid-stream, and after a longer burst of edits.
    for (const killAfterMs of [150, 400, 900]) {
      const server = await startServe(workspace);
      const client = await connectSocket(server);
      const notebook = await client.invoke('notebooks/create', { title: `kill after ${killAfterMs} ms` });
      const cells = await Promise.all(
        ['a', 'b', 'c'].map((name) => client.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: `${name}:0` })),
      );
      const acknowledged = new Map<string, number>();
      let stop = false;
      const editors = cells.map(async (cell, index) => {
        for (let version = 1; !stop; version++) {
          try {
            await client.invoke('cells/update', { id: cell.id, source: `${'abc'[index]}:${version}` });
            acknowledged.set(cell.id, version);
          } catch {
            return; // the server is gone
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      await server.stop('SIGKILL');
      stop = true;
      client.socket.terminate();
      await Promise.all(editors);

      const database = new Database(join(workspace, 'workspace.sqlite'));
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
      database.close();

      const reopened = await startServe(workspace);
      const check = await connectSocket(reopened);
      const saved = await check.invoke('notebooks/get', { id: notebook.id });
      expect(saved.cells).toHaveLength(3);
      for (const cell of saved.cells) {
        const version = Number(cell.source.split(':')[1]);
        // An edit the server acknowledged is on disk; at most the one in flight may be newer.
        expect(version).toBeGreaterThanOrEqual(acknowledged.get(cell.id) ?? 0);
        expect(version).toBeLessThanOrEqual((acknowledged.get(cell.id) ?? 0) + 1);
      }
      expect([...acknowledged.values()].every((version) => version > 0)).toBe(true);
      check.close();
      await reopened.stop();
    }
  }, 120_000);
});
