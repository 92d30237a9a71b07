import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { verifyBundle } from '../../../src-main/reports/verify-bundle';
import { sampleEvents, sampleMaterials } from './bundle-fixture';

const TEXT = '1. Query the flows into the home node.\n2. Finish with the best node.';
const VERSION = 'a'.repeat(64);

function withPlaybook(sha256: string): RunEvent[] {
  const [start, ...rest] = sampleEvents();
  if (start?.type !== 'run-start') throw new Error('the fixture starts with run-start');
  return [{ ...start, technique: 'autoplan', playbook: { version: VERSION, sha256, text: TEXT } }, ...rest];
}

describe('the playbook a run followed, in its audit chain', () => {
  it('is named by the report and verified against the sha256 it records', () => {
    const bundle = bundleFromRun(sampleMaterials(withPlaybook(createHash('sha256').update(TEXT).digest('hex'))), { at: '2026-01-02T10:00:00.000Z', generator: 'test' });
    expect(verifyBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    expect(renderHtmlReport(buildReport(bundle))).toContain(`version ${VERSION.slice(0, 12)}`);
  });

  it('is refused when the recorded text is not the text the sha256 names, even with the chain built around it', () => {
    expect(() => bundleFromRun(sampleMaterials(withPlaybook('0'.repeat(64))), { at: '2026-01-02T10:00:00.000Z', generator: 'test' })).toThrow(
      'event 0 (run-start): its playbook text does not match the playbook sha256 it records',
    );
  });
});
