/**
 * `CreateCommand`s (a `Command` of the JSON Ledger API beside `ExerciseCommand`) as the devnet
 * runs them. The devnet runs no Daml: it creates contracts of one template a wallet creates, the
 * Splice wallet's `TransferPreapprovalProposal`, and refuses every other template as a participant
 * refuses one it has no package of.
 *
 * A proposal (receiver, provider, and from splice-wallet 0.1.11 the expected DSO) is what a wallet
 * creates to pre-approve incoming Canton Coin; the provider, the validator operator, accepts it
 * and so creates the `TransferPreapproval`. The devnet's validator accepts at once: the command's
 * update pre-approves Amulet for the receiver, which the scan proxy's lookup then finds.
 *
 * Decisions:
 * - the receiver must be among the submitting parties (it signs the proposal);
 * - only the devnet's validator operator provides pre-approvals, and the expected DSO, when
 *   given, must be the devnet's; anything else would be a proposal no one ever accepts;
 * - the devnet does not prepare creations for external signing: a CreateCommand there is refused.
 */
import { CantonApiError, invalidArgument } from './canton-errors.js';
import { type Json, objectAt, optionalStringAt, stringAt } from './request-body.js';

/** The Splice wallet's package, whose proposal template the devnet creates. */
export const SPLICE_WALLET_PACKAGE_NAME = 'splice-wallet';
const PREAPPROVAL_PROPOSAL = 'Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal';

/** What a CreateCommand of a pre-approval proposal asks for. */
export interface PreapprovalProposal {
  readonly kind: 'preapprove';
  readonly receiver: string;
  readonly provider: string;
  readonly expectedDso: string | undefined;
}

/** A template id's package reference and qualified name (`Module:Entity`). */
function templateParts(templateId: string): { readonly pkg: string; readonly name: string } {
  const colon = templateId.indexOf(':');
  const name = colon <= 0 ? '' : templateId.slice(colon + 1);
  if (!name.includes(':')) {
    throw invalidArgument(
      `CreateCommand.templateId ${templateId} is not <package>:<module>:<entity>`,
    );
  }
  return { pkg: templateId.slice(0, colon), name };
}

/** The refusal of a template the devnet has no package of, or no such template in its package. */
function unknownTemplate(templateId: string, pkg: string, knownPackages: ReadonlySet<string>) {
  if (pkg.startsWith('#') && !knownPackages.has(pkg.slice(1))) {
    return new CantonApiError(
      'PACKAGE_NAMES_NOT_FOUND',
      'InvalidGivenCurrentSystemStateResourceMissing',
      `The following package names do not match upgradable packages uploaded on this participant: [${pkg.slice(1)}].`,
      { unknownPackageNames: pkg.slice(1) },
    );
  }
  return new CantonApiError(
    'TEMPLATES_OR_INTERFACES_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `The devnet ledger creates contracts of ${PREAPPROVAL_PROPOSAL} only, not of ${templateId}`,
    { templateId },
  );
}

/** A CreateCommand, as the pre-approval proposal it must be. */
export function parseCreateCommand(
  value: unknown,
  knownPackages: ReadonlySet<string>,
): PreapprovalProposal {
  const create = objectAt(value, 'commands[0].CreateCommand');
  const templateId = stringAt(create.templateId, 'CreateCommand.templateId');
  const { pkg, name } = templateParts(templateId);
  if (name !== PREAPPROVAL_PROPOSAL) throw unknownTemplate(templateId, pkg, knownPackages);
  const args: Json = objectAt(create.createArguments, 'CreateCommand.createArguments');
  return {
    kind: 'preapprove',
    receiver: stringAt(args.receiver, 'createArguments.receiver'),
    provider: stringAt(args.provider, 'createArguments.provider'),
    expectedDso: optionalStringAt(args.expectedDso, 'createArguments.expectedDso'),
  };
}

/** Refuses a proposal the devnet's validator (`operator`, of the DSO `dso`) would never accept. */
export function checkProposal(proposal: PreapprovalProposal, operator: string, dso: string): void {
  if (proposal.provider !== operator) {
    throw invalidArgument(
      `only the devnet's validator operator ${operator} provides pre-approvals, not ${proposal.provider}`,
    );
  }
  if (proposal.expectedDso !== undefined && proposal.expectedDso !== dso) {
    throw new CantonApiError(
      'DAML_FAILURE',
      'InvalidGivenCurrentSystemStateOther',
      `the expected DSO ${proposal.expectedDso} is not the devnet's DSO ${dso}`,
      { error_id: 'unexpected_dso' },
    );
  }
}

/** The refusal of a CreateCommand where the devnet runs exercises only (external signing). */
export function createNotPrepared(templateId: unknown): CantonApiError {
  return invalidArgument(
    `a CreateCommand (${String(templateId)}) is not prepared for external signing by the devnet ledger: submit it for an internal party with /v2/commands/submit-and-wait`,
  );
}
