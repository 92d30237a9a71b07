import { useEffect, useState } from 'react';
import { useWorkbench } from '../app/store-context';

/** Tables (or graph labels) with columns, types, keys and row counts. */
export function SchemaTree({ connectionId }: { connectionId: string }) {
  const schemaState = useWorkbench((state) => state.schemas[connectionId]);
  const loadSchema = useWorkbench((state) => state.loadSchema);
  const [open, setOpen] = useState<Set<string>>(new Set());

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
  if (schema.kind === 'graph') {
    return (
      <ul className="schema" data-testid="schema-tree">
        {[...schema.labels.map((label) => ({ ...label, prefix: ':' })), ...schema.relationshipTypes.map((type) => ({ ...type, prefix: '-[:' }))].map(
          (element) => (
            <li key={element.prefix + element.name}>
              <span className="table-name">
                {element.prefix}
                {element.name}
              </span>
              {element.count !== null && <span className="list-meta">{element.count.toLocaleString()}</span>}
            </li>
          ),
        )}
      </ul>
    );
  }
  const toggle = (name: string): void => {
    const next = new Set(open);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setOpen(next);
  };
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
