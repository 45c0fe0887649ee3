/**
 * Addresses and ABI shared by the MPP (Machine Payments Protocol) rails.
 *
 * @module
 */
import { Session } from "mppx/tempo";
import type { Address } from "viem";

/** The ABI mppx itself uses to talk to the TIP-1034 channel reserve. */
export const CHANNEL_RESERVE_ABI = Session.Precompile.escrowAbi;

/**
 * Canonical TIP-1034 TIP-20 channel reserve address (the precompile on Tempo; our Solidity
 * stand-in is installed here on a local anvil). The official mppx client only accepts this address.
 */
export const CHANNEL_RESERVE_ADDRESS: Address = Session.Precompile.Constants.tip20ChannelEscrow;

/** Tempo TIP-1020 signature verifier precompile (present in anvil 1.7.1 with `--hardfork T4`). */
export const SIGNATURE_VERIFIER_ADDRESS: Address = "0x5165300000000000000000000000000000000000";

/** Decimals of pathUSD and of every TIP-20 stablecoin on Tempo. */
export const TIP20_DECIMALS = 6;
