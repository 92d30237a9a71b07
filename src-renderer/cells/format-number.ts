/** Numbers as a chart axis or a summary line shows them: grouped when large, at most four significant digits when small (5, not 5.000). */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1000 || value === 0 ? value.toLocaleString(undefined, { maximumFractionDigits: 2 }) : String(Number(value.toPrecision(4)));
}
