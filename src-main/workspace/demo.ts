import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSqlDump } from '../dqa/sql-dump';
import { writeSqliteDatabase } from '../dqa/sqlite-import';
import { appRoot } from '../native/app-root';
import type { AppDatabase } from './app-database';
import type { Environment } from './clock';
import type { ConnectionStore } from './connection-store';
import type { NotebookStore } from './notebook-store';

interface DemoQuestion {
  id: string;
  country?: string;
  home?: string;
  goods?: string;
  question: string;
  goal?: string;
  business_rules: string;
  database: string;
}

const demoFlag = 'demo-installed';

/**
 * Seeds a new workspace with the bundled DQA demo: two SQLite databases converted from the
 * dumps in resources/demo, and a guided notebook. Runs once per workspace; deleting the demo
 * afterwards is the user's choice and is respected.
 */
export function installDemoOnce(context: {
  database: AppDatabase;
  workspaceDir: string;
  notebooks: NotebookStore;
  connections: ConnectionStore;
  environment: Environment;
}): void {
  const { database, notebooks, connections } = context;
  if (database.prepare('SELECT 1 FROM settings WHERE key = ?').get(demoFlag)) return;

  const resources = join(appRoot(), 'resources', 'demo');
  const target = join(context.workspaceDir, 'demo');
  mkdirSync(target, { recursive: true });
  const convert = (dumpName: string, fileName: string): string => {
    const path = join(target, fileName);
    writeSqliteDatabase(parseSqlDump(readFileSync(join(resources, dumpName), 'utf8'), dumpName), path);
    return path;
  };
  const locatingPath = convert('locating-1445.sql', 'dqa-locating-1445.sqlite');
  const buildingPath = convert('building-USA1836.sql', 'dqa-building-usa-1836.sqlite');
  const questions = JSON.parse(readFileSync(join(resources, 'questions.json'), 'utf8')) as DemoQuestion[];

  database.transaction(() => {
    const locating = connections.add('DQA Locating 1445 (demo)', { engine: 'sqlite', path: locatingPath });
    const building = connections.add('DQA Building USA 1836 (demo)', { engine: 'sqlite', path: buildingPath });
    const notebook = notebooks.create('Welcome to Decision Workbench');
    const provenance = { origin: 'bundled demo' };
    let after: string | undefined;
    const add = (cell: Omit<Parameters<NotebookStore['insertCell']>[0], 'notebookId' | 'afterCellId' | 'provenance'>): void => {
      after = notebooks.insertCell({ ...cell, notebookId: notebook.id, afterCellId: after, provenance }).id;
    };
    const [locatingQuestion, buildingQuestion] = questions;

    add({ kind: 'note', author: 'engine', source: welcomeText });
    if (locatingQuestion) {
      add({
        kind: 'question',
        author: 'engine',
        source: `${cleanQuestion(locatingQuestion.question)}\n\n${locatingQuestion.goal ?? ''}`.trim(),
        data: { dqaId: locatingQuestion.id, businessRules: locatingQuestion.business_rules, known: { country: locatingQuestion.country, home: locatingQuestion.home } },
      });
    }
    add({ kind: 'note', author: 'engine', source: firstQueryText });
    add({
      kind: 'query',
      author: 'engine',
      connectionId: locating.id,
      source:
        "SELECT nc.trade_node, nc.base_trading_power, t.total_power, t.local_value, t.ingoing\n" +
        "FROM node_country AS nc JOIN trade_node AS t ON t.trade_node = nc.trade_node\n" +
        "WHERE nc.country_name = 'SWE'\nORDER BY nc.base_trading_power DESC;",
    });
    if (locatingQuestion?.country && locatingQuestion.home) {
      add({ kind: 'note', author: 'engine', source: simulationText });
      add({
        kind: 'simulation',
        author: 'analyst',
        connectionId: locating.id,
        source: JSON.stringify({ scenario: 'locating', country: locatingQuestion.country, home: locatingQuestion.home, rules: 'stated' }),
      });
    }
    if (buildingQuestion) {
      add({ kind: 'note', author: 'engine', source: buildingText });
      add({
        kind: 'question',
        author: 'engine',
        source: cleanQuestion(buildingQuestion.question),
        data: { dqaId: buildingQuestion.id, businessRules: buildingQuestion.business_rules, known: { goods: buildingQuestion.goods } },
      });
      add({
        kind: 'query',
        author: 'engine',
        connectionId: building.id,
        source:
          "SELECT g.goods_name, g.base_price, g.current_price, g.pop_demand,\n" +
          '       (SELECT sum(max_demand) FROM demand d WHERE d.goods_id = g.code) AS building_demand,\n' +
          '       (SELECT sum(current_output) FROM supply s WHERE s.goods_id = g.code) AS supply\n' +
          'FROM goods AS g\nORDER BY g.current_price / g.base_price DESC;',
      });
    }
    if (buildingQuestion) {
      add({ kind: 'note', author: 'engine', source: whatIfText });
      add({
        kind: 'whatif',
        author: 'analyst',
        connectionId: building.id,
        source: JSON.stringify(
          {
            change: 'UPDATE supply\nSET current_output = current_output * (level + 5.0) / level\nWHERE building_id = :candidate AND goods_id = 7',
            objective: 'SELECT sum(current_output) FROM supply WHERE goods_id = 7',
            direction: 'maximize',
            candidatesQuery: 'SELECT building_id FROM supply WHERE goods_id = 7 ORDER BY building_id',
          },
          null,
          2,
        ),
      });
    }
    add({ kind: 'note', author: 'engine', source: nextStepsText });
    database.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(demoFlag, context.environment.now());
  })();
}

function cleanQuestion(text: string): string {
  return text.replace(/^=+\s*/u, '').replace(/<Question>\s*/u, '').trim();
}

const welcomeText = `## What the workbench does

Ask a decision question about your own data, and a model **plans** the analysis, **queries**
the database, **observes** the results, **re-plans** when the evidence says so, and
**recommends** a decision. Every step is a cell like the ones below: you can read it, edit it,
run it again and sign it off.

This demo workspace holds two databases from the DQA benchmark (PlanRAG, NAACL 2024; MIT):
a trade network from 1445 (*Locating*) and a market of goods and buildings from 1836
(*Building*). Both are opened **read-only**: no query can change them.`;

const firstQueryText = `## Look at the data yourself

The query cell below runs on the Locating database. Run it with **Shift+Enter** (or
**Ctrl+Enter** to stay in the cell), then sort the results by clicking a column header.
Edit the SQL freely — table and column names complete as you type, and every edit is saved.`;

const simulationText = `## Check a decision exactly

Where the business rules can be simulated, the workbench computes every option's outcome. Press
**▶ Simulate** below to rank every trade node for SWE's merchant; choose *DQA-compatible* rules
to reproduce the benchmark's annotation. Decision runs use the same simulator to check the
model's answer.`;

const buildingText = `## A second scenario

Building asks which building to expand to push a price down. The query below puts the demand
and supply the business rules talk about side by side.`;

const whatIfText = `## Try a change on a copy

A **what-if** cell applies one change per candidate to a throwaway copy of the database, measures
an objective before and after, and ranks the candidates. This one asks which building, expanded by
five levels with output in proportion to level, adds the most grain (goods 7): a first-order
estimate, not the market simulation above. The demo file itself is never written; the result
shows its hash before and after. Press **▶ Run what-if**.`;

const nextStepsText = `## Next

- **+ Query** adds a SQL cell; **+ Note** adds Markdown like this one; **+ What-if** tries changes on a copy of a SQLite database.
- The schema browser on the left lists each connection's tables, columns, keys and row counts.
- Add your own SQLite file under *Connections*.`;
