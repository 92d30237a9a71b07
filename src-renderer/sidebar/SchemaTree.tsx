import { useEffect } from 'react';
import { useWorkbench } from '../app/store-context';
import { GraphSchema } from '../connections/GraphSchema';
import { useOpenSet } from '../connections/use-open-set';

/** Tables with columns, types, keys and row counts; for graphs, labels and relationship types (GraphSchema). */
export function SchemaTree({ connectionId }: { connectionId: string }) {
  const schemaState = useWorkbench((state) => state.schemas[connectionId]);
  const loadSchema = useWorkbench((state) => state.loadSchema);
  const [open, toggle] = useOpenSet();

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
  const { schema } = schemaState;
  if (schema.kind === 'graph') return <GraphSchema schema={schema} />;
  return (
    <ul className="schema" data-testid="schema-tree">
      {schema.tables.map((table) => (
        <li key={table.name}>
          <button className="list-item table-row" onClick={() => toggle(table.name)} aria-expanded={open.has(table.name)}>
            <span className="chevron">{open.has(table.name) ? '▾' : '▸'}</span>
            <span className="table-name">{table.name}</span>
            {table.kind === 'view' && <span className="tag">view</span>}
            <span className="list-meta" data-testid="row-count">
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
      ))}
    </ul>
  );
}
