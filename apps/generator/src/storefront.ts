/** Concurrent shopper sessions moving through the storefront funnel, with realistic drop-off, baskets and amounts. */

import {
  type Currency,
  type Device,
  type EventType,
  type SchemaVersion,
} from '@clickstream/contracts';
import { buildCatalogue, CURRENCY_RATES, priceIn, type Catalogue, type Product } from './catalogue';
import type { Prng } from './prng';

/** An event as the storefront sees it: everything but seq, run_id and the times, which the planner sets. */
export interface Draft {
  event_id: string;
  event_type: EventType;
  session_id: string;
  user_id: string | null;
  page: string | null;
  product_id: string | null;
  quantity: number | null;
  amount_cents: number | null;
  currency: string | null;
  device: Device | null;
  /** The schema version the shopper's client writes (old app versions still write v1). */
  version: SchemaVersion;
}

interface Session {
  id: string;
  userId: string | null;
  device: Device;
  currency: Currency;
  version: SchemaVersion;
  last: EventType | null;
  category: string | null;
  viewed: Product | null;
  cart: Map<string, { product: Product; quantity: number }>;
}

type Step = EventType | 'exit';

/** Next-step weights by the previous event: the funnel and its drop-off. */
const FUNNEL: Readonly<Record<EventType | 'start', readonly (readonly [Step, number])[]>> = {
  start: [['page_view', 1]],
  page_view: [
    ['page_view', 0.25],
    ['product_view', 0.55],
    ['exit', 0.2],
  ],
  product_view: [
    ['product_view', 0.35],
    ['add_to_cart', 0.25],
    ['page_view', 0.15],
    ['remove_from_cart', 0.02],
    ['checkout_started', 0.03],
    ['exit', 0.2],
  ],
  add_to_cart: [
    ['product_view', 0.35],
    ['checkout_started', 0.3],
    ['remove_from_cart', 0.08],
    ['page_view', 0.12],
    ['exit', 0.15],
  ],
  remove_from_cart: [
    ['product_view', 0.4],
    ['checkout_started', 0.2],
    ['page_view', 0.2],
    ['exit', 0.2],
  ],
  checkout_started: [
    ['payment_succeeded', 0.62],
    ['payment_failed', 0.18],
    ['exit', 0.2],
  ],
  payment_failed: [
    ['payment_succeeded', 0.45],
    ['payment_failed', 0.1],
    ['exit', 0.45],
  ],
  payment_succeeded: [
    ['exit', 0.85],
    ['page_view', 0.15],
  ],
};

const DEVICES: readonly (readonly [Device, number])[] = [
  ['desktop', 0.45],
  ['mobile', 0.45],
  ['tablet', 0.08],
  ['unknown', 0.02],
];
const SHOP_CURRENCIES: readonly (readonly [Currency, number])[] = [
  ['EUR', 0.4],
  ['GBP', 0.25],
  ['USD', 0.2],
  ['SEK', 0.1],
  ['DKK', 0.05],
];
const QUANTITIES: readonly (readonly [number, number])[] = [
  [1, 0.7],
  [2, 0.2],
  [3, 0.07],
  [4, 0.03],
];
const SHIPPING_EUR_CENTS = 495;

export interface StorefrontOptions {
  /** Concurrent sessions; the mean gap between two events of a session is sessions / rate. */
  sessions: number;
  /** Share of sessions whose client writes schema v1. */
  v1Share: number;
  /** Share of sessions of signed-in shoppers (the rest are anonymous: user_id null). */
  signedInShare?: number;
  /** Size of the pool of known shoppers. */
  users?: number;
}

export class Storefront {
  readonly catalogue: Catalogue;
  private readonly pool: Session[] = [];

  constructor(
    private readonly prng: Prng,
    private readonly opts: StorefrontOptions,
  ) {
    if (!Number.isInteger(opts.sessions) || opts.sessions < 1)
      throw new RangeError(`sessions must be a positive integer, got ${opts.sessions}`);
    this.catalogue = buildCatalogue(prng);
    for (let i = 0; i < opts.sessions; i++) this.pool.push(this.newSession());
  }

  private newSession(): Session {
    const p = this.prng;
    const signedIn = p.chance(this.opts.signedInShare ?? 0.35);
    return {
      id: p.uuidV4(),
      userId: signedIn ? `u-${String(p.int(1, this.opts.users ?? 20_000)).padStart(6, '0')}` : null,
      device: p.weighted(DEVICES),
      currency: p.weighted(SHOP_CURRENCIES),
      version: p.chance(this.opts.v1Share) ? 1 : 2,
      last: null,
      category: null,
      viewed: null,
      cart: new Map(),
    };
  }

  /** The next event of a random active session; a session that drops off is replaced by a new one. */
  next(): Draft {
    const p = this.prng;
    const index = Math.floor(p.float() * this.pool.length);
    let session = this.pool[index]!;
    let step = this.chooseStep(session);
    if (step === 'exit') {
      session = this.newSession();
      this.pool[index] = session;
      step = 'page_view';
    }
    return this.emit(session, step);
  }

  /** Identity of a random active session, for poison that must look like it came from a real shopper. */
  someSession(): {
    id: string;
    userId: string | null;
    device: Device;
    currency: Currency;
    version: SchemaVersion;
  } {
    const s = this.pool[Math.floor(this.prng.float() * this.pool.length)]!;
    return {
      id: s.id,
      userId: s.userId,
      device: s.device,
      currency: s.currency,
      version: s.version,
    };
  }

  randomProduct(): Product {
    return this.prng.pick(this.catalogue.products);
  }

  private chooseStep(s: Session): Step {
    const allowed = FUNNEL[s.last ?? 'start'].filter(([step]) => {
      if (step === 'add_to_cart') return s.viewed !== null;
      if (step === 'remove_from_cart' || step === 'checkout_started') return s.cart.size > 0;
      return true;
    });
    return this.prng.weighted(allowed);
  }

  private cartTotal(s: Session): number {
    let total = 0;
    for (const { product, quantity } of s.cart.values())
      total += priceIn(product, s.currency) * quantity;
    return total;
  }

  private emit(s: Session, type: EventType): Draft {
    const p = this.prng;
    const draft: Draft = {
      event_id: p.uuidV4(),
      event_type: type,
      session_id: s.id,
      user_id: s.userId,
      page: null,
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: s.device,
      version: s.version,
    };
    switch (type) {
      case 'page_view': {
        s.category = p.pick(this.catalogue.categories);
        draft.page = p.weighted<string>([
          ['/', 0.35],
          [`/c/${s.category}`, 0.45],
          [`/search?q=${s.category}`, 0.12],
          ['/sale', 0.08],
        ]);
        break;
      }
      case 'product_view': {
        const inCategory =
          s.category === null ? undefined : this.catalogue.byCategory.get(s.category);
        const product = inCategory && p.chance(0.7) ? p.pick(inCategory) : this.randomProduct();
        s.viewed = product;
        draft.page = `/p/${product.id}`;
        draft.product_id = product.id;
        break;
      }
      case 'add_to_cart': {
        const product = s.viewed as Product;
        const quantity = p.weighted(QUANTITIES);
        const line = s.cart.get(product.id);
        s.cart.set(product.id, { product, quantity: (line?.quantity ?? 0) + quantity });
        Object.assign(draft, {
          page: `/p/${product.id}`,
          product_id: product.id,
          quantity,
          amount_cents: priceIn(product, s.currency) * quantity,
          currency: s.currency,
        });
        break;
      }
      case 'remove_from_cart': {
        const line = p.pick([...s.cart.values()]);
        const quantity = p.int(1, line.quantity);
        if (quantity === line.quantity) s.cart.delete(line.product.id);
        else line.quantity -= quantity;
        Object.assign(draft, {
          page: '/cart',
          product_id: line.product.id,
          quantity,
          amount_cents: priceIn(line.product, s.currency) * quantity,
          currency: s.currency,
        });
        break;
      }
      case 'checkout_started':
        Object.assign(draft, {
          page: '/checkout',
          amount_cents: this.cartTotal(s),
          currency: s.currency,
        });
        break;
      case 'payment_succeeded':
      case 'payment_failed': {
        const shipping = Math.round(SHIPPING_EUR_CENTS * CURRENCY_RATES[s.currency]);
        Object.assign(draft, {
          page: '/checkout/payment',
          amount_cents: this.cartTotal(s) + shipping,
          currency: s.currency,
        });
        if (type === 'payment_succeeded') s.cart.clear();
        break;
      }
    }
    s.last = type;
    return draft;
  }
}
