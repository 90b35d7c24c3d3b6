/**
 * The AWP draft's flight-booking surface: typed entities, a dependency graph (search → book → check in / select
 * seat), authentication on booking, idempotency keys, an asynchronous operation (a fare alert that runs as a
 * deferred task), a streaming one (live flight status), and a destructive, irreversible one (cancellation, which
 * needs the caller's confirmation). Run it: `agentry host examples/flights/agent.ts --port 8082`; bookings need
 * `Authorization: Bearer <token>` signed with FLIGHTS_JWT_SECRET (default `demo-flights-secret`, HS256).
 *
 * Data is in memory: a small fixed timetable, and bookings that last as long as the process.
 */
import { randomUUID } from 'node:crypto';
import { defineAgent, HostError } from '@agentry/host';

const AIRPORT = { type: 'string', pattern: '^[A-Z]{3}$', description: 'IATA airport code, e.g. SFO.' };
const CABIN = { type: 'string', enum: ['economy', 'business', 'first'] };

const FLIGHT = {
  type: 'object',
  properties: {
    flight_number: { type: 'string' },
    origin: AIRPORT,
    destination: AIRPORT,
    departure_time: { type: 'string', format: 'date-time' },
    price_usd: { type: 'number' },
    cabin_class: CABIN,
  },
  required: ['flight_number', 'origin', 'destination', 'departure_time', 'price_usd', 'cabin_class'],
};

interface Flight {
  flight_number: string;
  origin: string;
  destination: string;
  departure_time: string;
  price_usd: number;
  cabin_class: 'economy' | 'business' | 'first';
}

interface Booking {
  booking_id: string;
  flight: Flight;
  passenger: string;
  seat?: string;
  checked_in: boolean;
}

const ROUTES: ReadonlyArray<readonly [string, string, number]> = [
  ['SFO', 'JFK', 320],
  ['JFK', 'SFO', 310],
  ['SFO', 'LHR', 780],
  ['LHR', 'CDG', 140],
  ['CDG', 'NRT', 910],
];
const CABIN_FACTOR = { economy: 1, business: 2.6, first: 4.1 } as const;

const bookings = new Map<string, Booking>();

function timetable(
  origin: string,
  destination: string,
  date: string,
  cabin: Flight['cabin_class'],
): Flight[] {
  return ROUTES.filter(([from, to]) => from === origin && to === destination).flatMap(
    ([from, to, base], route) =>
      [8, 13, 19].map((hour, index) => ({
        flight_number: `AG${100 + route * 10 + index}`,
        origin: from,
        destination: to,
        departure_time: `${date}T${String(hour).padStart(2, '0')}:00:00Z`,
        price_usd: Math.round(base * CABIN_FACTOR[cabin] * (1 + index * 0.15)),
        cabin_class: cabin,
      })),
  );
}

function bookingOf(id: string): Booking {
  const booking = bookings.get(id);
  if (booking === undefined) {
    throw new HostError({
      status: 404,
      code: 'BOOKING_NOT_FOUND',
      title: 'No such booking',
      detail: `No booking ${id}.`,
    });
  }
  return booking;
}

export const flights = defineAgent({
  id: 'flights',
  name: 'Flight Booking',
  description: 'Search flights, book them, check in, choose seats, watch fares and follow flights live.',
  version: '0.1.0',
  tags: ['travel', 'flights', 'booking'],
  capabilities: ['flight-search', 'flight-booking'],
  languages: ['en'],
  surface: {
    domain: 'flights.example',
    intent: 'Book and manage air travel.',
    entities: { flight: FLIGHT },
    errors: {
      AUTH_EXPIRED: { recovery: 'obtain a new token, then retry the original action' },
      RATE_LIMITED: { recovery: 'wait for the Retry-After delay, then retry' },
      SEAT_UNAVAILABLE: { recovery: 'retry search_flights with different parameters' },
      BOOKING_NOT_FOUND: { recovery: 'call book_flight first, or check the booking_id' },
    },
    hints: {
      optimal_search_window: 'search at least 24h before departure',
      auth_note: 'search does not require auth — only authenticate when booking',
    },
  },
  auth: {
    requiredFor: ['book_flight', 'check_in', 'select_seat', 'cancel_booking'],
    optionalFor: ['search_flights'],
  },
  operations: {
    search_flights: {
      description: 'Search available flights between two airports.',
      input: {
        type: 'object',
        properties: {
          origin: AIRPORT,
          destination: AIRPORT,
          date: { type: 'string', format: 'date' },
          cabin_class: CABIN,
        },
        required: ['origin', 'destination', 'date'],
      },
      output: {
        type: 'object',
        properties: { flights: { type: 'array', items: FLIGHT }, search_token: { type: 'string' } },
        required: ['flights', 'search_token'],
      },
      safe: true,
      idempotent: true,
      rateLimit: '30/minute',
      handler: (input: {
        origin: string;
        destination: string;
        date: string;
        cabin_class?: Flight['cabin_class'];
      }) => ({
        flights: timetable(input.origin, input.destination, input.date, input.cabin_class ?? 'economy'),
        search_token: randomUUID(),
      }),
    },
    book_flight: {
      description: 'Book a seat on a flight found by search_flights.',
      input: {
        type: 'object',
        properties: {
          flight_number: { type: 'string' },
          date: { type: 'string', format: 'date' },
          passenger: { type: 'string', minLength: 1 },
          idempotency_key: { type: 'string' },
        },
        required: ['flight_number', 'date', 'passenger'],
      },
      output: {
        type: 'object',
        properties: { booking_id: { type: 'string' }, flight: FLIGHT },
        required: ['booking_id', 'flight'],
      },
      authRequired: true,
      dependsOn: ['search_flights'],
      idempotency: { supported: true, keyField: 'idempotency_key', window: '24h' },
      handler: (input: { flight_number: string; date: string; passenger: string }) => {
        const flight = ROUTES.flatMap(([from, to]) => timetable(from, to, input.date, 'economy')).find(
          (candidate) => candidate.flight_number === input.flight_number,
        );
        if (flight === undefined) {
          throw new HostError({
            status: 409,
            code: 'SEAT_UNAVAILABLE',
            title: 'No seat on that flight',
            detail: `Flight ${input.flight_number} has no seats on ${input.date}.`,
          });
        }
        const booking: Booking = {
          booking_id: randomUUID(),
          flight,
          passenger: input.passenger,
          checked_in: false,
        };
        bookings.set(booking.booking_id, booking);
        return { booking_id: booking.booking_id, flight };
      },
    },
    check_in: {
      description: 'Check in for a booked flight.',
      input: { type: 'object', properties: { booking_id: { type: 'string' } }, required: ['booking_id'] },
      output: {
        type: 'object',
        properties: { boarding_pass: { type: 'string' } },
        required: ['boarding_pass'],
      },
      authRequired: true,
      idempotent: true,
      dependsOn: ['book_flight'],
      handler: (input: { booking_id: string }) => {
        const booking = bookingOf(input.booking_id);
        booking.checked_in = true;
        return {
          boarding_pass: `${booking.flight.flight_number}-${booking.passenger.toUpperCase().replace(/\s+/g, '')}`,
        };
      },
    },
    select_seat: {
      description: 'Choose a seat on a booked flight.',
      input: {
        type: 'object',
        properties: {
          booking_id: { type: 'string' },
          seat: { type: 'string', pattern: '^[0-9]{1,2}[A-F]$' },
        },
        required: ['booking_id', 'seat'],
      },
      output: { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] },
      authRequired: true,
      idempotent: true,
      dependsOn: ['book_flight'],
      handler: (input: { booking_id: string; seat: string }) => {
        bookingOf(input.booking_id).seat = input.seat;
        return { seat: input.seat };
      },
    },
    cancel_booking: {
      description: 'Cancel a booking. The fare is not refunded.',
      input: { type: 'object', properties: { booking_id: { type: 'string' } }, required: ['booking_id'] },
      output: { type: 'object', properties: { cancelled: { type: 'boolean' } }, required: ['cancelled'] },
      authRequired: true,
      sensitivity: 'irreversible',
      reversible: false,
      requiresConfirmation: true,
      handler: (input: { booking_id: string }) => {
        bookingOf(input.booking_id);
        bookings.delete(input.booking_id);
        return { cancelled: true };
      },
    },
    watch_fare: {
      description: 'Watch the fare of a route and report the lowest price found (runs as a deferred task).',
      input: {
        type: 'object',
        properties: { origin: AIRPORT, destination: AIRPORT, date: { type: 'string', format: 'date' } },
        required: ['origin', 'destination', 'date'],
      },
      output: {
        type: 'object',
        properties: { lowest_price_usd: { type: ['number', 'null'] }, checks: { type: 'integer' } },
        required: ['lowest_price_usd', 'checks'],
      },
      safe: true,
      executionModel: 'async',
      handler: async (input: { origin: string; destination: string; date: string }, context) => {
        let lowest: number | null = null;
        const checks = 3;
        for (let check = 1; check <= checks; check++) {
          context.signal.throwIfAborted();
          for (const flight of timetable(input.origin, input.destination, input.date, 'economy')) {
            lowest = lowest === null ? flight.price_usd : Math.min(lowest, flight.price_usd);
          }
          context.progress({ checks: check, of: checks });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { lowest_price_usd: lowest, checks };
      },
    },
    flight_status: {
      description: 'Follow a flight live: status updates as they happen, then the final status.',
      input: {
        type: 'object',
        properties: { flight_number: { type: 'string' } },
        required: ['flight_number'],
      },
      output: {
        type: 'object',
        properties: { flight_number: { type: 'string' }, status: { type: 'string' } },
        required: ['flight_number', 'status'],
      },
      safe: true,
      streaming: true,
      handler: async function* (input: { flight_number: string }) {
        for (const status of ['scheduled', 'boarding', 'departed']) {
          yield { flight_number: input.flight_number, status };
        }
        return { flight_number: input.flight_number, status: 'landed' };
      },
    },
  },
});

export default flights;

/** Bearer JWTs (HS256) signed with FLIGHTS_JWT_SECRET protect bookings. */
export const hostOptions = {
  auth: { jwt: { secret: process.env.FLIGHTS_JWT_SECRET ?? 'demo-flights-secret' } },
};
