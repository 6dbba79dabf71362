/**
 * `effect-user-interaction/acp`: the Agent Client Protocol surface.
 * `AcpProvider` asks an ACP client (an editor such as Zed) through form
 * elicitation.
 *
 * @since 0.2.0
 */
export { AcpProvider, type AcpProviderOptions, AcpSession, type CancelSessionOptions } from "./AcpProvider.js"
