/**
 * The webhooks page's state and calls (webhooks.tsx): the endpoints listed, the secret just
 * made, which endpoint is being edited, rotated, deleted or read, and the calls that change them.
 * Every change lists the endpoints again, so the page shows what the service holds.
 */
import type { DeveloperPortal } from '@poolparty/sdk';
import {
  type CreateWebhookParams,
  type UpdateWebhookParams,
  type WebhookEndpoint,
  type WithWebhooks,
  withWebhooks,
} from '@poolparty/sdk/webhooks';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { formatTime } from '../../format.js';
import { usePortalAction } from './portal-action.js';

/** A secret just made: shown in full this once. */
export interface RevealedSecret {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
  /** After a rotation: until when the old secret signs too; null for a new endpoint. */
  readonly previousSecretExpiresAt: string | null;
}

/** What the page is doing with one endpoint, if anything. */
export type Focus = {
  readonly kind: 'edit' | 'rotate' | 'delete' | 'deliveries';
  readonly endpointId: string;
} | null;

export function useWebhooks(plain: DeveloperPortal) {
  const portal = useMemo(() => withWebhooks(plain), [plain]);
  const { busy, error, fail, run } = usePortalAction<WithWebhooks>(portal);
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | null>(null);
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const [focus, setFocus] = useState<Focus>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** Test events sent: an open delivery log reads itself again when it grows. */
  const [tests, setTests] = useState(0);

  // As on the keys page, the first listing holds no button, and fills only an empty list.
  useEffect(() => {
    portal.webhooks
      .list()
      .then((listed) => setEndpoints((shown) => shown ?? listed.endpoints), fail);
  }, [portal, fail]);

  const change = (action: (p: WithWebhooks) => Promise<string | null>) =>
    run(async (p) => {
      const said = await action(p);
      setNotice(said);
      setEndpoints((await p.webhooks.list()).endpoints);
    });

  const create = (params: CreateWebhookParams) =>
    change(async (p) => {
      const { endpoint, secret } = await p.webhooks.create(params);
      setRevealed({ endpoint, secret, previousSecretExpiresAt: null });
      return null;
    });

  const update = (endpoint: WebhookEndpoint, params: UpdateWebhookParams, said: string) =>
    change(async (p) => {
      await p.webhooks.update(endpoint.id, params);
      setFocus(null);
      return said;
    });

  const rotate = (endpoint: WebhookEndpoint, overlapSeconds: number) =>
    change(async (p) => {
      const rotated = await p.webhooks.rotateSecret(endpoint.id, { overlapSeconds });
      setRevealed({ endpoint, ...rotated });
      setFocus(null);
      return null;
    });

  const remove = (endpoint: WebhookEndpoint) =>
    change(async (p) => {
      await p.webhooks.delete(endpoint.id);
      setFocus(null);
      return `The endpoint ${endpoint.url} is deleted: nothing more is sent to it.`;
    });

  const test = (endpoint: WebhookEndpoint) =>
    change(async (p) => {
      const { delivery } = await p.webhooks.test(endpoint.id);
      setFocus({ kind: 'deliveries', endpointId: endpoint.id });
      setTests((count) => count + 1);
      return `A webhook.test event is on its way to ${endpoint.url} (${formatTime(delivery.createdAt)}).`;
    });

  return {
    portal,
    endpoints,
    revealed,
    setRevealed,
    focus,
    setFocus,
    notice,
    tests,
    busy,
    error,
    create,
    update,
    rotate,
    remove,
    test,
  };
}

export type WebhooksState = ReturnType<typeof useWebhooks>;
