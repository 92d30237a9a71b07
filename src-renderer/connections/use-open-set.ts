import { useState } from 'react';

/** Which rows of a tree are open: the set of their keys, and a toggle. */
export function useOpenSet(): [ReadonlySet<string>, (key: string) => void] {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string): void => {
    const next = new Set(open);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setOpen(next);
  };
  return [open, toggle];
}
