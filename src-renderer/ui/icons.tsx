/**
 * Small line icons drawn as SVG, so they look the same whatever fonts the machine has (symbol
 * characters such as ⧉ or 🗑 show as empty boxes where no installed font holds them).
 */
const common = { width: 14, height: 14, viewBox: '0 0 16 16', fill: 'none', stroke: 'currentColor', strokeWidth: 1.5, strokeLinecap: 'round', strokeLinejoin: 'round', 'aria-hidden': true } as const;

export function CopyIcon() {
  return (
    <svg {...common}>
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2" />
    </svg>
  );
}

export function TrashIcon() {
  return (
    <svg {...common}>
      <path d="M2.5 4.5h11M6.5 4.5V3a.5.5 0 0 1 .5-.5h2a.5.5 0 0 1 .5.5v1.5M4 4.5l.7 8.6a1 1 0 0 0 1 .9h4.6a1 1 0 0 0 1-.9l.7-8.6" />
    </svg>
  );
}

export function PencilIcon() {
  return (
    <svg {...common}>
      <path d="M11 2.5l2.5 2.5L6 12.5l-3 .5.5-3z" />
    </svg>
  );
}
