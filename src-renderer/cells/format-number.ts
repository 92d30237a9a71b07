/** Numbers as a chart axis or a summary line shows them: grouped when large, four significant digits when small. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1000 || value === 0 ? value.toLocaleString(undefined, { maximumFractionDigits: 2 }) : value.toPrecision(4);
}
