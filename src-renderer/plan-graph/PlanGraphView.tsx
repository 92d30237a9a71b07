import { Handle, Position, ReactFlow, useReactFlow, useStore, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useState } from 'react';
import type { Cell } from '../../src-main/contract';
import { layoutPlanGraph, type PlanGraphLayout, type PlanGraphNode } from '../../src-main/contract/plan-graph';
import { useWorkbench } from '../ui/store-context';
import { ResultGrid } from '../grid/ResultGrid';
import { nodeReviewText, planNodesOfCell, planRunCells, skippedQuery, type PlanRunCells } from './plan-graph-data';
import { ScrollablePre } from '../ui/ScrollablePre';
import './plan-graph.css';

type PlanFlowNode = Node<{ node: PlanGraphNode }, 'plan'>;

const statusLabels: Record<PlanGraphNode['status'], string> = {
  pending: 'pending',
  running: 'running…',
  answered: 'answered',
  failed: 'failed',
  blocked: 'blocked',
  step: '',
};

/**
 * A plan cell drawn as its graph (React Flow, laid out by dagre: levels left to right, a
 * level's nodes stacked so its parallel width shows, the critical path highlighted), each
 * node's state live from the run's cells, the plan's JSON beside it, and the chosen node's
 * question, query, rows, answer, tokens and latency below.
 */
export function PlanGraphView({ cell }: { cell: Extract<Cell, { kind: 'plan' }> }) {
  const runId = cell.provenance.runId;
  const cells = useWorkbench((state) => state.cells);
  const live = useWorkbench((state) => (runId ? state.runs[runId]?.status === 'running' : false));
  // A run waiting for the analyst (step-through) can have a node re-run: it stops where it waits.
  const paused = useWorkbench((state) => (runId ? Boolean(state.runs[runId]?.pendingReview) : false));
  const run = useMemo(() => planRunCells(cells, runId), [cells, runId]);
  // After the analyst edited the plan in step-through, the graph that ran is the edited one.
  const planNodes = useMemo(() => run.editedPlan ?? planNodesOfCell(cell.data), [run.editedPlan, cell.data]);
  const layout = useMemo(() => layoutPlanGraph(planNodes, { outcomes: run.outcomes, tracked: run.tracked, live }), [planNodes, run, live]);
  const [selected, setSelected] = useState<string | null>(null);

  const height = Math.min(520, Math.max(140, layout.height + 24));
  const chosen = layout.nodes.find((node) => node.id === selected) ?? null;
  const widths = layout.levels.map((level) => level.length);

  return (
    <div className="plan-graph" data-testid="plan-graph">
      <p className="plan-graph-summary muted small">
        {layout.levels.length} level{layout.levels.length === 1 ? '' : 's'} · widths {widths.join(', ')} · critical path {layout.criticalPath.join(' → ')}
        {run.editedPlan && ' · as the analyst edited or re-ran it [ext]'}
      </p>
      <div className="plan-graph-body">
        <PlanFlowCanvas layout={layout} selected={selected} onSelect={(id) => setSelected((current) => (current === id ? null : id))} height={height} />
        <details className="plan-json" open>
          <summary>Plan JSON</summary>
          <pre data-testid="plan-json">{JSON.stringify({ nodes: planNodes }, null, 2)}</pre>
        </details>
      </div>
      {chosen && <NodeDetail node={chosen} run={run} />}
      {chosen && runId && run.tracked && (!live || paused) && <RerunNode key={chosen.id} runId={runId} node={chosen} layout={layout} paused={live} />}
    </div>
  );
}

/** The graph itself (React Flow over the dagre layout), read-only: the plan cell's and the step-through review's. */
export function PlanFlowCanvas({ layout, selected, onSelect, height }: { layout: PlanGraphLayout; selected: string | null; onSelect(id: string): void; height: number }) {
  const flowNodes = useMemo<PlanFlowNode[]>(
    () => layout.nodes.map((node) => ({ id: node.id, type: 'plan', position: { x: node.x, y: node.y }, data: { node }, width: node.width, height: node.height, selected: node.id === selected })),
    [layout, selected],
  );
  const flowEdges = useMemo<Edge[]>(
    () =>
      layout.edges.map((edge) => ({
        id: `${edge.from}->${edge.to}`,
        source: edge.from,
        target: edge.to,
        className: edge.critical ? 'plan-edge-critical' : 'plan-edge',
        ...(edge.critical ? { style: { stroke: 'var(--warn)', strokeWidth: 2.5 } } : {}),
      })),
    [layout],
  );
  return (
    <div className="plan-graph-canvas" style={{ height }}>
      <ReactFlow
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={fitOptions}
        minZoom={minZoom}
        nodesDraggable={false}
        nodesConnectable={false}
        zoomOnScroll={false}
        panOnScroll={false}
        preventScrolling={false}
        // React Flow listens for Space, Backspace, Shift and Meta on the whole document by
        // default; the graph is read-only, and those keys belong to the editors around it.
        panActivationKeyCode={null}
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
        zoomActivationKeyCode={null}
        disableKeyboardA11y
        onNodeClick={(_event, node) => onSelect(node.id)}
      >
        <KeepFitted layout={layout} />
      </ReactFlow>
    </div>
  );
}

/** Room around the graph, as a share of the canvas; no zoom above 1 (a small plan stays legible, not huge). */
const fitOptions = { maxZoom: 1, padding: 0.1 } as const;
const minZoom = 0.2;

/**
 * React Flow fits the view once, when it first measures the canvas; a canvas that then changed
 * width (the notebook beside the review dock, a window resized) or a plan that changed (a
 * relabel, a new node) kept the old view and cut the rightmost node at the edge ("faile"). This
 * sets the view from the layout's own boxes whenever the layout or the canvas size changes:
 * centred, with the padding around it, never zoomed above 1 nor below React Flow's minimum.
 */
function KeepFitted({ layout }: { layout: PlanGraphLayout }) {
  const { setViewport } = useReactFlow();
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  useEffect(() => {
    if (width <= 0 || height <= 0 || layout.nodes.length === 0) return;
    const left = Math.min(...layout.nodes.map((node) => node.x));
    const top = Math.min(...layout.nodes.map((node) => node.y));
    const boxWidth = Math.max(...layout.nodes.map((node) => node.x + node.width)) - left;
    const boxHeight = Math.max(...layout.nodes.map((node) => node.y + node.height)) - top;
    const room = 1 - 2 * fitOptions.padding;
    const zoom = Math.max(minZoom, Math.min(fitOptions.maxZoom, (width * room) / boxWidth, (height * room) / boxHeight));
    void setViewport({ x: (width - boxWidth * zoom) / 2 - left * zoom, y: (height - boxHeight * zoom) / 2 - top * zoom, zoom });
  }, [width, height, layout, setViewport]);
  return null;
}

function PlanNodeBox({ data }: NodeProps<PlanFlowNode>) {
  const { node } = data;
  const hover = [`${node.id}: ${node.outcome?.question ?? node.text}`, node.outcome?.answer ? `Answer: ${node.outcome.answer}` : '', node.outcome?.failure ?? ''].filter(Boolean).join('\n');
  return (
    <div className={`plan-node status-${node.status}${node.critical ? ' critical' : ''}`} title={hover} data-testid="plan-node" data-node-id={node.id} data-status={node.status}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="plan-node-head">
        <strong>{node.id}</strong>
        {node.outcome?.pinned ? (
          <span className="plan-node-status status-pinned" title="The analyst pinned this answer; the node did not run [extension beyond the paper]">
            pinned
          </span>
        ) : (
          node.status !== 'step' && <span className={`plan-node-status status-${node.status}`}>{statusLabels[node.status]}</span>
        )}
      </div>
      <div className="plan-node-text">{node.outcome?.question ?? node.text}</div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { plan: PlanNodeBox };

/**
 * Re-running a node of a finished run [ext: the paper has no re-run]: a new run keeps the other
 * answers and runs this node (its question edited, or its answer pinned) and its descendants.
 */
function RerunNode({ runId, node, layout, paused }: { runId: string; node: PlanGraphNode; layout: PlanGraphLayout; paused: boolean }) {
  const rerunNode = useWorkbench((state) => state.rerunNode);
  const reportError = useWorkbench((state) => state.reportError);
  const [question, setQuestion] = useState(node.text);
  const [pinned, setPinned] = useState('');
  const [sent, setSent] = useState(false);
  const stale = descendantsIn(layout, node.id);
  const rerun = (): void => {
    setSent(true);
    const change = { ...(question.trim() && question.trim() !== node.text.trim() ? { question: question.trim() } : {}), ...(pinned.trim() ? { pinned: pinned.trim() } : {}) };
    void rerunNode(runId, node.id, change)
      .catch((error: unknown) => reportError(error, `Could not re-run ${node.id}`))
      .finally(() => setSent(false));
  };
  return (
    <div className="plan-node-detail plan-rerun" data-testid="plan-rerun">
      <h4>
        Re-run {node.id} <span className="muted small">[extension beyond the paper]</span>
      </h4>
      <p className="muted small">
        {paused ? 'The paused run stops where it waits. ' : ''}A new run keeps the other nodes&apos; answers and runs {node.id}
        {stale.length ? ` and its descendants (${stale.join(', ')}, stale)` : ''} again; the decision is made again and checked by the simulator.
      </p>
      <textarea aria-label={`New question for ${node.id}`} rows={2} value={question} onChange={(event) => setQuestion(event.target.value)} />
      <label className="small">
        Pinned answer <input aria-label={`Pinned answer for ${node.id}`} placeholder="none: the node runs" value={pinned} onChange={(event) => setPinned(event.target.value)} />
      </label>
      <div className="review-actions">
        <button className="primary small" data-testid="plan-rerun-start" disabled={sent} onClick={rerun}>
          Re-run {node.id}
          {stale.length ? ' and its descendants' : ''}
        </button>
      </div>
    </div>
  );
}

/** Every node that depends on `id`, directly or not, in the layout's order. */
function descendantsIn(layout: PlanGraphLayout, id: string): string[] {
  const found = new Set<string>();
  const visit = (parent: string): void => {
    for (const edge of layout.edges) {
      if (edge.from === parent && !found.has(edge.to)) {
        found.add(edge.to);
        visit(edge.to);
      }
    }
  };
  visit(id);
  return layout.nodes.map((node) => node.id).filter((candidate) => found.has(candidate));
}

function NodeDetail({ node, run }: { node: PlanGraphNode; run: PlanRunCells }) {
  const { outcome } = node;
  const queries = run.queries.get(node.id) ?? [];
  const reviews = run.reviews.get(node.id) ?? [];
  return (
    <div className="plan-node-detail" data-testid="plan-node-detail">
      <h4>
        {node.id} <span className={`plan-node-status status-${node.status}`}>{statusLabels[node.status]}</span>
      </h4>
      <dl>
        <dt>Question</dt>
        <dd>{outcome?.question ?? node.text}</dd>
        {outcome?.question && outcome.question !== node.text && (
          <>
            <dt>As planned</dt>
            <dd className="muted">{node.text}</dd>
          </>
        )}
        {node.dependsOn.length > 0 && (
          <>
            <dt>Parents</dt>
            <dd>{node.dependsOn.join(', ')}</dd>
          </>
        )}
        {outcome?.answer !== null && outcome?.answer !== undefined && (
          <>
            <dt>Answer</dt>
            <dd data-testid="plan-node-answer">
              {outcome.pinned && <span className="plan-node-status status-pinned">pinned by the analyst [ext]</span>} {outcome.answer}
              {outcome.explanation && !outcome.pinned && <span className="muted"> — {outcome.explanation}</span>}
            </dd>
          </>
        )}
        {outcome?.failure && (
          <>
            <dt>Failure</dt>
            <dd>{outcome.failure}</dd>
          </>
        )}
        {outcome && outcome.blockedBy.length > 0 && (
          <>
            <dt>Blocked by</dt>
            <dd>{outcome.blockedBy.join(', ')}</dd>
          </>
        )}
        {outcome && (
          <>
            <dt>Tokens</dt>
            <dd>
              {outcome.promptTokens} prompt · {outcome.completionTokens} completion
            </dd>
            <dt>Latency</dt>
            <dd>{outcome.latencyMs === null ? '—' : `${outcome.latencyMs} ms`}</dd>
          </>
        )}
        {reviews.length > 0 && (
          <>
            <dt>Analyst</dt>
            <dd data-testid="plan-node-reviews">{reviews.map(nodeReviewText).join('; ')}</dd>
          </>
        )}
      </dl>
      {queries.map((query) => (
        <div key={query.id} className="plan-node-query">
          {query.author === 'analyst' && <p className="muted small">The analyst's version of the model's query:</p>}
          <ScrollablePre className="observation" label="Query">
            {query.source}
          </ScrollablePre>
          {query.output?.status === 'ok' && <ResultGrid result={query.output.result} fileName={`${node.id}-${query.id.slice(0, 8)}`} exportCellId={query.id} />}
          {query.output?.status === 'error' && <p className="error">{query.output.error.message}</p>}
        </div>
      ))}
      {queries.length === 0 && outcome && (
        <p className="muted small" data-testid="plan-node-no-query">
          {outcome.reusedFrom
            ? `Answer kept from run ${outcome.reusedFrom}: this node was not stale in the re-run.`
            : skippedQuery(reviews)
              ? 'No result: the analyst skipped this node\'s query, so it answered without one.'
              : outcome.pinned
                ? 'No query: the analyst pinned this answer, so the node did not run.'
                : 'No query for this node (computed from its parents or a shared result).'}
        </p>
      )}
    </div>
  );
}
