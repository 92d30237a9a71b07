import type { SchemaInfo } from '../../src-main/contract';
import './connections.css';

type GraphSchemaInfo = Extract<SchemaInfo, { kind: 'graph' }>;
type GraphElement = GraphSchemaInfo['labels'][number];

function count(value: number | null): string {
  return value === null ? '?' : value.toLocaleString();
}

/** One label or relationship type: its count, and when opened its endpoints and properties. */
function ElementRow({ element, kind, open, onToggle }: { element: GraphElement; kind: 'label' | 'type'; open: boolean; onToggle(): void }) {
  const name = kind === 'label' ? `:${element.name}` : `[:${element.name}]`;
  return (
    <li className="element" data-testid={kind === 'label' ? 'graph-label' : 'graph-relationship-type'}>
      <button className="list-item element-row" onClick={onToggle} aria-expanded={open} title={`${element.properties.length} properties`}>
        <span className="chevron">{open ? '▾' : '▸'}</span>
        <span className={kind === 'label' ? 'label-name' : 'type-name'}>{name}</span>
        <span className="spacer" />
        <span className="list-meta" data-testid="element-count">
          {count(element.count)}
        </span>
      </button>
      {open && kind === 'type' && (element.endpoints?.length ?? 0) > 0 && (
        <ul className="endpoints" aria-label={`${element.name} connects`}>
          {element.endpoints?.map((pair) => {
            const [from, to] = pair.split('->');
            return <li key={pair}>{`(:${from ?? '?'})-[:${element.name}]->(:${to ?? '?'})`}</li>;
          })}
        </ul>
      )}
      {open && (
        <ul className="properties" aria-label={`${element.name} properties`}>
          {element.properties.length === 0 && <li className="column-type">no properties</li>}
          {element.properties.map((property) => (
            <li key={property.name}>
              <span className="column-name">{property.name}</span>
              <span className="column-type">{property.type || 'any'}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** A graph's node labels and relationship types with counts, endpoints and typed properties. */
export function GraphSchema({ schema, open, onToggle: toggle }: { schema: GraphSchemaInfo; open: ReadonlySet<string>; onToggle(key: string): void }) {
  return (
    <ul className="graph-schema" data-testid="schema-tree">
      <li className="section">Node labels</li>
      {schema.labels.length === 0 && <li className="column-type">none</li>}
      {schema.labels.map((label) => (
        <ElementRow key={`label:${label.name}`} element={label} kind="label" open={open.has(`label:${label.name}`)} onToggle={() => toggle(`label:${label.name}`)} />
      ))}
      <li className="section">Relationship types</li>
      {schema.relationshipTypes.length === 0 && <li className="column-type">none</li>}
      {schema.relationshipTypes.map((type) => (
        <ElementRow key={`type:${type.name}`} element={type} kind="type" open={open.has(`type:${type.name}`)} onToggle={() => toggle(`type:${type.name}`)} />
      ))}
    </ul>
  );
}
