import { useEffect, useState } from 'react';
import { useWorkbench } from '../ui/store-context';

/** Whether a connection's data has a simulator, asked once per connection for the page's life. */
const fits = new Map<string, Promise<boolean>>();

/**
 * True when a simulation cell would fit here: the connection a new cell would take (its
 * neighbour's) holds data one of the simulators knows. False while unknown, so the offer only
 * appears where it can work.
 */
export function useSimulatorFit(connectionId: string | null): boolean {
  const detectScenario = useWorkbench((state) => state.detectScenario);
  const [answer, setAnswer] = useState<{ connectionId: string; fits: boolean } | null>(null);
  useEffect(() => {
    if (!connectionId) return;
    let current = true;
    let pending = fits.get(connectionId);
    if (!pending) {
      pending = detectScenario(connectionId).then(
        (scenario) => scenario !== null,
        () => false,
      );
      fits.set(connectionId, pending);
    }
    void pending.then((fit) => {
      if (current) setAnswer({ connectionId, fits: fit });
    });
    return () => {
      current = false;
    };
  }, [connectionId, detectScenario]);
  return connectionId !== null && answer?.connectionId === connectionId && answer.fits;
}
