import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src-main/connectors/connector';
import { openConnector } from '../../../src-main/connectors/open-connector';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { planCheck, refuseAnalystProblems } from '../../../src-main/simulators/check-plan';
import { sqliteFromDqaDump, tinySqlite } from '../../support/fixtures';
import { useSuiteTempDir } from '../../support/temp';

/** The check plan against real SQLite copies of the DQA dumps: parameters read, validated against the data, or why not. */
const suiteDir = useSuiteTempDir();
let locating: Connector;
let building: Connector;
let tiny: Connector;

beforeAll(async () => {
  locating = await openConnector({ engine: 'sqlite', path: sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir()) });
  building = await openConnector({ engine: 'sqlite', path: sqliteFromDqaDump('building/db/USA1836.sql', suiteDir()) });
  tiny = await openConnector({ engine: 'sqlite', path: tinySqlite(suiteDir()) });
});
afterAll(async () => {
  await Promise.all([locating, building, tiny].map((connector) => connector.close()));
});

const question = 'Assume that you are the ruler of the country named "SWE". Our home node is "baltic_sea". Where should I allocate my merchant?';

describe('the check plan of a typed question', () => {
  it('reads the Locating parameters and spells them as the data does', async () => {
    const plan = await planCheck(locating, { rules: 'compat', known: {}, question: question.replace('"SWE"', 'swe').replace('"baltic_sea"', '"Baltic Sea"') });
    expect(plan).toMatchObject({ scenario: 'locating', parsed: { country: 'swe', home: 'Baltic Sea' }, parameters: { country: 'SWE', home: 'baltic_sea' }, problems: [], unchecked: null });
    expect(plan.simulator?.known).toEqual({ country: 'SWE', home: 'baltic_sea' });
  });

  it('lets the analyst’s parameters win, refuses those the data lacks, and only reports a question’s own slip', async () => {
    const given = await planCheck(locating, { rules: 'compat', known: { country: 'DAN', home: 'lubeck' }, question });
    expect(given.parameters).toEqual({ country: 'DAN', home: 'lubeck' });
    const wrong = await planCheck(locating, { rules: 'compat', known: { home: 'atlantis' }, question });
    expect(wrong.unchecked).toBe('the home node "atlantis" given is not in this data');
    expect(() => refuseAnalystProblems(wrong)).toThrow(new WorkbenchError('invalid-request', 'The home node "atlantis" given is not in this data: correct it or leave it empty'));
    const slip = await planCheck(locating, { rules: 'compat', known: {}, question: question.replace('"SWE"', '"ATL"') });
    expect(slip.unchecked).toBe('the country "ATL" the question names is not in this data');
    expect(() => refuseAnalystProblems(slip)).not.toThrow();
    const emptied = await planCheck(locating, { rules: 'compat', known: { home: ' ' }, question });
    expect(emptied.unchecked).toBe('no home node is given');
  });

  it('reads the goods of a Building question, a name of several words too', async () => {
    expect(await planCheck(building, { rules: 'stated', known: {}, question: 'Which building should grow to lower the price of furniture?' })).toMatchObject({ scenario: 'building', parameters: { goods: 'furniture' }, unchecked: null });
    expect(await planCheck(building, { rules: 'stated', known: {}, question: 'Which building should grow to lower the price of luxury furniture?' })).toMatchObject({ parameters: { goods: 'luxury_furniture' }, unchecked: null });
    expect((await planCheck(building, { rules: 'stated', known: {}, question: 'Which building should grow by five levels?' })).unchecked).toBe('the question names no goods');
  });

  it('says why a decision will not be checked: no simulator fits, or the check is off', async () => {
    expect(await planCheck(tiny, { rules: 'stated', known: {}, question })).toMatchObject({ scenario: null, unchecked: 'no simulator recognises this schema', simulator: null });
    expect(await planCheck(locating, { rules: 'off', known: {}, question })).toMatchObject({ unchecked: 'the simulator check is turned off for this run', simulator: null });
    expect((await planCheck(locating, { rules: 'compat', known: {}, question: 'We are the country named "SWE". Where should our merchant go?' })).unchecked).toBe('the question names no home node');
  });

  it('says the simulator cannot read data whose tables look like a scenario but whose columns do not fit', async () => {
    const path = join(suiteDir(), 'lookalike.sqlite');
    const database = new Database(path);
    database.exec('CREATE TABLE country (name TEXT); CREATE TABLE trade_node (name TEXT); CREATE TABLE flow (a TEXT); CREATE TABLE node_country (b TEXT);');
    database.close();
    const lookalike = await openConnector({ engine: 'sqlite', path });
    try {
      const plan = await planCheck(lookalike, { rules: 'compat', known: {}, question });
      expect(plan.scenario).toBe('locating');
      expect(plan.simulator).toBeNull();
      expect(plan.unchecked).toMatch(/^the simulator cannot read this data: .+/);
      expect(plan.unchecked).not.toMatch(/Cannot read properties|undefined/);
    } finally {
      await lookalike.close();
    }
  });
});
