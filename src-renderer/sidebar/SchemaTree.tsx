import { useEffect, useState } from 'react';
import type { SchemaInfo } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { GraphSchema } from '../connections/GraphSchema';
import { filterSchema } from '../connections/schema-filter';
import { useOpenSet } from '../connections/use-open-set';
import { groupByNamespace, groupKey, nameInGroup } from '../connections/schema-groups';

/** Tables with columns, types, keys and row counts; for graphs, labels and relationship types (GraphSchema). */
export function SchemaTree({ connectionId }: { connectionId: string }) {
  const schemaState = useWorkbench((state) => state.schemas[connectionId]);
  const loadSchema = useWorkbench((state) => state.loadSchema);
  const [toggled, toggle] = useOpenSet();
  const [filter, setFilter] = useState('');

  useEffect(() => {
    void loadSchema(connectionId);
  }, [connectionId, loadSchema]);

  if (!schemaState || schemaState.status === 'loading') return <p className="muted schema">Reading schema…</p>;
  if (schemaState.status === 'error') {
    return (
      <div className="schema form-error" role="alert">
        {schemaState.message}{' '}
        <button className="ghost small" onClick={() => void loadSchema(connectionId, { refresh: true })}>
          Retry
        </button>
      </div>
    );
  }
  const { schema, opened } = filterSchema(schemaState.schema, filter);
  const open = new Set([...toggled, ...opened]);
  const size = schemaState.schema.kind === 'graph' ? schemaState.schema.labels.length + schemaState.schema.relationshipTypes.length : schemaState.schema.tables.length;
  const filterField = size > 0 && (
    <input
      className="schema-filter"
      type="search"
      aria-label="Filter the schema"
      placeholder={schema.kind === 'graph' ? 'Filter labels, types, properties' : 'Filter tables and columns'}
      value={filter}
      onChange={(event) => setFilter(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && filter) {
          event.stopPropagation();
          setFilter('');
        }
      }}
    />
  );
  const nothing = filter.trim() !== '' && (schema.kind === 'graph' ? schema.labels.length + schema.relationshipTypes.length === 0 : schema.tables.length === 0);
  return (
    <>
      {filterField}
      {nothing && <p className="muted schema" role="status">Nothing in this schema matches “{filter.trim()}”.</p>}
      {schema.kind === 'graph' ? <GraphSchema schema={schema} open={open} onToggle={toggle} /> : <TableTree tables={schema.tables} open={open} onToggle={toggle} filtering={filter.trim() !== ''} />}
    </>
  );
}

type Table = Extract<SchemaInfo, { kind: 'relational' }>['tables'][number];
type TreeProps = { open: ReadonlySet<string>; onToggle(key: string): void };

/** The default schema's tables, then one folding row per other schema or catalog. */
function TableTree({ tables, open, onToggle: toggle, filtering }: TreeProps & { tables: readonly Table[]; filtering: boolean }) {
  const { own, groups } = groupByNamespace(tables);
  return (
    <ul className="schema" data-testid="schema-tree">
      {own.map((table) => (
        <TableRow key={table.name} table={table} label={table.name} open={open} onToggle={toggle} />
      ))}
      {groups.map(({ namespace, tables: grouped }) => {
        // A filter shows its matches: the groups that hold them are open while it is typed.
        const isOpen = filtering || open.has(groupKey(namespace));
        return (
          <li key={groupKey(namespace)} data-testid="schema-namespace">
            <button className="list-item table-row namespace-row" onClick={() => toggle(groupKey(namespace))} aria-expanded={isOpen}>
              <span className="chevron">{isOpen ? '▾' : '▸'}</span>
              <span className="namespace-name">{namespace}</span>
              <span className="list-meta">{grouped.length === 1 ? '1 table' : `${grouped.length.toLocaleString()} tables`}</span>
            </button>
            {isOpen && (
              <ul className="schema namespace-tables">
                {grouped.map((table) => (
                  <TableRow key={table.name} table={table} label={nameInGroup(table)} open={open} onToggle={toggle} />
                ))}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function TableRow({ table, label, open, onToggle: toggle }: TreeProps & { table: Table; label: string }) {
  return (
    <li>
      <button className="list-item table-row" onClick={() => toggle(table.name)} aria-expanded={open.has(table.name)} title={label === table.name ? undefined : table.name}>
        <span className="chevron">{open.has(table.name) ? '▾' : '▸'}</span>
        <span className="table-name">{label}</span>
        {table.kind === 'view' && <span className="tag">view</span>}
        <span className="list-meta" data-testid="row-count" title={table.rowCount === null ? "Rows not counted: views, tables past the first 300, and Trino tables outside the connection's catalog (a count there may be a scan) are not" : 'Rows'}>
          {table.rowCount === null ? '?' : table.rowCount.toLocaleString()}
        </span>
      </button>
      {open.has(table.name) && (
        <ul className="columns">
          {table.columns.map((column) => (
            <li key={column.name}>
              <span className="column-name">{column.name}</span>
              <span className="column-type">{column.type || 'any'}</span>
              {column.primaryKey > 0 && <span className="tag key" title="Primary key">PK</span>}
              {column.references && <span className="tag ref" title={`References ${column.references}`}>FK</span>}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
