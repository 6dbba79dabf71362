/**
 * What a person sees to pair a phone: the pairing URL
 * (`https://HOST:PORT/pair#code=CODE`, the code in the fragment so it never
 * reaches a server's log) and, on a terminal, its QR code drawn with
 * Unicode half blocks by `uqr` (no dependencies, renders straight to text;
 * decision 141) with the code under it for typing by hand.
 *
 * @internal
 */
import { renderUnicodeCompact } from "uqr"

/** The pairing page of the inbox at `base` (ending in `/`) with `code` in the fragment. */
export const pairUrl = (base: string, code: string): string => new URL(`pair#code=${encodeURIComponent(code)}`, base).href

/** The code in two groups of five, as people read it out (the page takes it with or without the space). */
const grouped = (code: string): string => `${code.slice(0, 5)} ${code.slice(5)}`

/**
 * The block a terminal shows: the QR code of `url` when there is one, then
 * the code and until when it holds.
 */
export const pairingBlock = (code: string, expiresAt: Date, url: string | undefined): string => {
  const qr = url === undefined ? "" : `${renderUnicodeCompact(url, { border: 2 })}\n`
  const time = expiresAt.toTimeString().slice(0, 5)
  return `${qr}Pairing code: ${grouped(code)} (single use, valid until ${time})\n`
}
