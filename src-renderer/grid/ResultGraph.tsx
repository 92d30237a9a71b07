import { Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useState, type KeyboardEvent } from 'react';
import type { GraphNode, GraphRelationship, ResultGraph as Graph } from '../../src-main/contract';
import { labelColours, layoutResultGraph, nodeCaption, nodePropertyNames, graphNodeSize } from './result-graph-layout';
import './result-graph.css';

type GraphFlowNode = Node<{ node: GraphNode; caption: string; colour: number }, 'element'>;

type Chosen = { kind: 'node'; id: string } | { kind: 'relationship'; id: string } | null;

/**
 * A Cypher result drawn as a graph (React Flow over a dagre layout): nodes coloured by label and
 * captioned by the chosen property, relationships as arrows named by type, a cap with a note, and
 * an inspector of the clicked element's properties with "Expand neighbours" (the cell adds the
 * visible query). Text from the data is rendered as text only, never as HTML.
 */
export function ResultGraph(props: {
  graph: Graph;
  caption: string | undefined;
  onCaptionChange(property: string | undefined): void;
  /** Absent when the engine has no way to find the node again (then no expand button). */
  onExpand?: (node: GraphNode) => void;
}) {
  const { graph, caption } = props;
  const layout = useMemo(() => layoutResultGraph(graph), [graph]);
  const colours = useMemo(() => labelColours(graph), [graph]);
  const properties = useMemo(() => nodePropertyNames(graph), [graph]);
  const [chosen, setChosen] = useState<Chosen>(null);

  const flowNodes = useMemo<GraphFlowNode[]>(
    () =>
      layout.nodes.map(({ node, x, y }) => ({
        id: node.id,
        type: 'element',
        position: { x, y },
        width: graphNodeSize.width,
        height: graphNodeSize.height,
        selected: chosen?.kind === 'node' && chosen.id === node.id,
        data: { node, caption: nodeCaption(node, caption), colour: colours.get(node.labels[0] ?? '') ?? 0 },
      })),
    [layout, caption, colours, chosen],
  );
  const flowEdges = useMemo<Edge[]>(
    () =>
      layout.relationships.map((relationship) => ({
        id: relationship.id,
        source: relationship.start,
        target: relationship.end,
        label: relationship.type,
        className: 'graph-edge',
        markerEnd: { type: MarkerType.ArrowClosed },
        selected: chosen?.kind === 'relationship' && chosen.id === relationship.id,
      })),
    [layout, chosen],
  );

  const height = Math.min(560, Math.max(220, Math.max(...layout.nodes.map((placed) => placed.y + graphNodeSize.height), 0) + 40));
  const capped = layout.nodes.length < layout.totalNodes || layout.relationships.length < layout.totalRelationships;
  // One tab stop for the whole graph: the arrow keys walk its nodes in layout order, each shown in the inspector.
  const walkNodes = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (step === undefined || layout.nodes.length === 0) return;
    event.preventDefault();
    const at = chosen?.kind === 'node' ? layout.nodes.findIndex((placed) => placed.node.id === chosen.id) : -1;
    const next = at < 0 ? (step > 0 ? 0 : layout.nodes.length - 1) : (at + step + layout.nodes.length) % layout.nodes.length;
    const node = layout.nodes[next]?.node;
    if (node) setChosen({ kind: 'node', id: node.id });
  };
  const chosenNode = chosen?.kind === 'node' ? graph.nodes.find((node) => node.id === chosen.id) : undefined;
  const chosenRelationship = chosen?.kind === 'relationship' ? graph.relationships.find((relationship) => relationship.id === chosen.id) : undefined;

  return (
    <div className="result-graph" data-testid="result-graph">
      <div className="result-graph-toolbar">
        <span className="result-graph-summary" data-testid="result-graph-summary">
          {layout.nodes.length.toLocaleString()} node{layout.nodes.length === 1 ? '' : 's'} · {layout.relationships.length.toLocaleString()} relationship
          {layout.relationships.length === 1 ? '' : 's'}
        </span>
        <ul className="result-graph-legend" aria-label="Labels">
          {[...colours].map(([label, colour]) => (
            <li key={label} className={`graph-colour-${colour}`} data-testid="graph-legend-label">
              {label || '(no label)'}
            </li>
          ))}
        </ul>
        <span className="spacer" />
        <label className="setting">
          caption
          <select aria-label="Caption property" data-testid="graph-caption" value={caption ?? ''} onChange={(event) => props.onCaptionChange(event.target.value || undefined)}>
            <option value="">automatic</option>
            {properties.map((property) => (
              <option key={property} value={property}>
                {property}
              </option>
            ))}
          </select>
        </label>
      </div>
      {capped && (
        <p className="result-truncated" data-testid="result-graph-cap">
          Showing {layout.nodes.length.toLocaleString()} of {layout.totalNodes.toLocaleString()} nodes and {layout.relationships.length.toLocaleString()} of{' '}
          {layout.totalRelationships.toLocaleString()} relationships, so the view stays quick; the table has every row.
        </p>
      )}
      <div className="result-graph-body">
        <div
          className="result-graph-canvas"
          style={{ height }}
          role="figure"
          tabIndex={0}
          onKeyDown={walkNodes}
          data-testid="result-graph-canvas"
          aria-label={`Graph of ${layout.nodes.length} nodes and ${layout.relationships.length} relationships; the arrow keys choose a node`}
        >
          <ReactFlow
            nodes={flowNodes}
            edges={flowEdges}
            nodeTypes={nodeTypes}
            fitView
            fitViewOptions={{ maxZoom: 1, padding: 0.08 }}
            minZoom={0.1}
            nodesDraggable={false}
            nodesConnectable={false}
            zoomOnScroll={false}
            panOnScroll={false}
            preventScrolling={false}
            // As in the plan graph: the document's Space, Backspace and modifier keys belong to the editors around it.
            panActivationKeyCode={null}
            deleteKeyCode={null}
            selectionKeyCode={null}
            multiSelectionKeyCode={null}
            zoomActivationKeyCode={null}
            disableKeyboardA11y
            onNodeClick={(_event, node) => setChosen({ kind: 'node', id: node.id })}
            onEdgeClick={(_event, edge) => setChosen({ kind: 'relationship', id: edge.id })}
          >
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
        <GraphInspector node={chosenNode} relationship={chosenRelationship} graph={graph} onExpand={props.onExpand} onClose={() => setChosen(null)} />
      </div>
    </div>
  );
}

function GraphElementBox({ data }: NodeProps<GraphFlowNode>) {
  const { node, caption, colour } = data;
  return (
    <div
      className={`graph-node graph-colour-${colour}`}
      title={`${node.labels.join(':') || '(no label)'} · ${caption}`}
      data-testid="graph-node"
      data-node-id={node.id}
      data-label={node.labels[0] ?? ''}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="graph-node-caption" data-testid="graph-node-caption">
        {caption}
      </span>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { element: GraphElementBox };

function PropertyList({ properties }: { properties: Record<string, unknown> }) {
  const entries = Object.entries(properties);
  if (entries.length === 0) return <p className="muted small">No properties.</p>;
  return (
    <dl className="graph-properties" data-testid="graph-properties">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The clicked node's or relationship's labels and properties; a node can have its neighbours added. */
function GraphInspector(props: {
  node: GraphNode | undefined;
  relationship: GraphRelationship | undefined;
  graph: Graph;
  onExpand: ((node: GraphNode) => void) | undefined;
  onClose(): void;
}) {
  const { node, relationship, graph, onExpand } = props;
  if (!node && !relationship) {
    return (
      <aside className="graph-inspector" aria-label="Inspector" data-testid="graph-inspector">
        <p className="muted small">Click a node or a relationship to see its properties.</p>
      </aside>
    );
  }
  const endName = (id: string): string => {
    const end = graph.nodes.find((candidate) => candidate.id === id);
    return end ? `${end.labels[0] ?? ''} ${nodeCaption(end, undefined)}`.trim() : id;
  };
  return (
    <aside className="graph-inspector" aria-label="Inspector" aria-live="polite" data-testid="graph-inspector">
      <div className="graph-inspector-head">
        {node ? (
          <strong data-testid="graph-inspector-title">{node.labels.join(':') || '(no label)'}</strong>
        ) : (
          <strong data-testid="graph-inspector-title">{relationship?.type}</strong>
        )}
        <button className="icon" aria-label="Close the inspector" onClick={props.onClose}>
          ×
        </button>
      </div>
      {relationship && (
        <p className="small">
          {endName(relationship.start)} → {endName(relationship.end)}
        </p>
      )}
      <PropertyList properties={(node ?? relationship)?.properties ?? {}} />
      <p className="muted small graph-element-id">id {(node ?? relationship)?.id}</p>
      {node && onExpand && (
        <button className="ghost small" data-testid="graph-expand" onClick={() => onExpand(node)} title="Adds a read-only query cell below that returns this node's neighbours, and runs it">
          Expand neighbours
        </button>
      )}
    </aside>
  );
}
