import type { PaymentRequirements } from "@x402/core/types";
import { authorizationTypes, permit2WitnessTypes, uptoPermit2WitnessTypes } from "@x402/evm";
import type { Hex, TypedDataDefinition } from "viem";
import { PERMIT2_ADDRESS } from "../chain/addresses.ts";
import { isTypedDataSignedBy } from "../crypto/signatures.ts";
import type { Authorization } from "./payment-payload.ts";
import type { AuthorizationFacts } from "./settlement-chain.ts";

/**
 * The public facts of an authorisation, kept in the ledger (never its signature): enough to ask
 * the chain whether it paid (who, whom, how much, with which nonce, when), after a restart or when
 * no transaction hash is known.
 */
export function authorizationFacts(authorization: Authorization, asset: string): AuthorizationFacts {
  if (authorization.kind === "eip3009") {
    const { from, to, value, nonce, validAfter, validBefore } = authorization.fields.authorization;
    return {
      kind: "eip3009",
      from: from.toLowerCase(),
      to: to.toLowerCase(),
      value,
      nonce,
      token: asset.toLowerCase(),
      validAfter,
      validBefore,
    };
  }
  const { from, nonce, deadline, permitted, witness } = authorization.fields.permit2Authorization;
  return {
    kind: "permit2",
    from: from.toLowerCase(),
    to: witness.to.toLowerCase(),
    value: permitted.amount,
    nonce,
    token: permitted.token.toLowerCase(),
    validAfter: witness.validAfter,
    validBefore: deadline,
  };
}

const chainIdOf = (network: string) => Number(network.split(":")[1]);

/** The EIP-712 data the payer signed, as the facilitator rebuilds it to verify. */
export function signedTypedData(authorization: Authorization, requirements: PaymentRequirements) {
  const chainId = chainIdOf(requirements.network);
  if (authorization.kind === "eip3009") {
    const { name, version } = (requirements.extra ?? {}) as { name?: string; version?: string };
    const fields = authorization.fields.authorization;
    return {
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      domain: { name, version, chainId, verifyingContract: requirements.asset as Hex },
      message: {
        from: fields.from as Hex,
        to: fields.to as Hex,
        value: BigInt(fields.value),
        validAfter: BigInt(fields.validAfter),
        validBefore: BigInt(fields.validBefore),
        nonce: fields.nonce as Hex,
      },
    } as unknown as TypedDataDefinition;
  }
  const fields = authorization.fields.permit2Authorization;
  const witness = fields.witness as { to: string; validAfter: string; facilitator?: string };
  return {
    types: witness.facilitator === undefined ? permit2WitnessTypes : uptoPermit2WitnessTypes,
    primaryType: "PermitWitnessTransferFrom",
    domain: { name: "Permit2", chainId, verifyingContract: PERMIT2_ADDRESS },
    message: {
      permitted: { token: fields.permitted.token as Hex, amount: BigInt(fields.permitted.amount) },
      spender: fields.spender as Hex,
      nonce: BigInt(fields.nonce),
      deadline: BigInt(fields.deadline),
      witness: {
        to: witness.to as Hex,
        ...(witness.facilitator === undefined ? {} : { facilitator: witness.facilitator as Hex }),
        validAfter: BigInt(witness.validAfter),
      },
    },
  } as unknown as TypedDataDefinition;
}

/**
 * Whether the authorisation's signature is its payer's (an EOA's ECDSA signature, checked
 * offline): what a replay must show before it gets a stored response, since the authorisation
 * itself may be spent by then.
 */
export function isSignedByPayer(authorization: Authorization, requirements: PaymentRequirements): boolean {
  try {
    return isTypedDataSignedBy(
      authorization.from,
      signedTypedData(authorization, requirements),
      authorization.fields.signature as Hex,
    );
  } catch {
    // Typed data that cannot be encoded (a hostile field) is signed by nobody.
    return false;
  }
}
