/**
 * `effect-user-interaction/email`: the mail surface. `EmailProvider` sends
 * each ask as a mail and takes the human's reply, read over IMAP, as the
 * answer.
 *
 * @since 0.3.0
 */
export { EmailProvider, type EmailProviderOptions } from "./EmailProvider.js"
