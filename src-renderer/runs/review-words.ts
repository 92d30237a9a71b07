import type { ReviewPoint, TechniqueInfo } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

const inWords = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });

/** What a technique's step-through stops for, in words ("each query and each re-plan"); null: it never stops. */
export function reviewWords(points: readonly ReviewPoint[]): string | null {
  return points.length ? inWords.format(points.map((point) => point.what)) : null;
}

/** The stops of a technique as its definition declares them (runs/techniques); undefined while the list is not loaded or the id is unknown. */
export function useReviewPoints(techniqueId: string): readonly ReviewPoint[] | undefined {
  return useWorkbench((state) => state.techniques.find((technique: TechniqueInfo) => technique.id === techniqueId)?.reviews);
}
