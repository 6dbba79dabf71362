/** Small helpers shared by the benchmarks: timing and a markdown table. */

export interface Timing {
  readonly seconds: number
  readonly perSecond: string
  readonly micros: string
}

/** Runs `body` once after a warm-up of the same body, returning its rate for `n` operations. */
export const time = async (n: number, body: () => Promise<unknown>): Promise<Timing> => {
  await body()
  globalThis.gc?.()
  const start = performance.now()
  await body()
  const seconds = (performance.now() - start) / 1000
  return {
    seconds,
    perSecond: Math.round(n / seconds).toLocaleString("en"),
    micros: ((seconds * 1e6) / n).toFixed(2)
  }
}

/** Prints a markdown table. */
export const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): void => {
  const lines = [header, header.map(() => "---"), ...rows].map((row) => `| ${row.join(" | ")} |`)
  process.stdout.write(`${lines.join("\n")}\n\n`)
}
