// A spam run from one template, names, numbers and links varied, and messages written apart, for the near-duplicate
// tests (store, routes, browser).
const FIRST = ['Olivia', 'Mateo', 'Priya', 'Kenji', 'Amara', 'Lukas', 'Sofia', 'Omar', 'Chloe', 'Ivan', 'Nadia', 'Tomasz'];
const LAST = ['Brown', 'Garcia', 'Sharma', 'Tanaka', 'Okafor', 'Weber', 'Rossi', 'Haddad', 'Martin', 'Petrov'];
const HOSTS = ['rank-boost', 'seo-wins', 'top-links', 'fast-rank', 'page-one', 'link-farm', 'grow-traffic'];

/** The i-th post of the flood: the same sentences, another name, price, count and link each time. */
export function floodFields(i: number): Record<string, string> {
  const first = FIRST[i % FIRST.length] as string;
  const last = LAST[(i * 7) % LAST.length] as string;
  const host = `${HOSTS[i % HOSTS.length] as string}-${i}.example`;
  return {
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@mail${i % 5}.example`,
    message:
      `Hi ${first}, I visited your website and noticed it is not on the first page of Google. ` +
      `For only $${99 + (i % 300)} per month our team will build ${20 + (i % 80)} quality backlinks and bring your ` +
      `site to the top within ${2 + (i % 6)} weeks. See our results at https://${host}/case-${i} and reply today ` +
      `for a free audit. Best regards, ${last} Marketing`,
  };
}

/** Messages people write, each on its own (no template shared). */
export const VARIED_MESSAGES = [
  'Hello, could you tell me whether the blue sofa is still available and how long delivery to Leeds would take?',
  'We would like to book a table for six people on Friday evening, ideally near the window if possible.',
  'My order arrived with a cracked lid. Can you send a replacement or should I return the whole set first?',
  'Is the workshop next month suitable for complete beginners, or do we need some experience with watercolours?',
  'I am applying for the junior developer role and attached my portfolio; happy to talk any afternoon this week.',
  'Please remove my address from your newsletter list, I no longer live at the flat on Mill Road.',
  'Do you offer group discounts for schools? We are planning a visit with about thirty pupils in spring.',
  'The invoice for March lists two licences but we only use one. Could you check and correct it please?',
  'Our clinic needs a quote for cleaning three floors twice a week, including the waiting room carpets.',
  'Thanks for the quick repair last time. The boiler is making the same noise again since yesterday morning.',
  'Best online casino bonus today: deposit now and spin the wheel for free chips, limited offer for new players.',
  'Buy cheap replica watches and designer bags with worldwide shipping and secure payment through our store.',
  'Wie lange dauert der Versand nach Österreich und kann ich die Rechnung an meine Firma stellen lassen?',
  '¿Tienen disponibilidad para una reunión el martes por la tarde para hablar del proyecto de reforma?',
  'Crypto investment opportunity with guaranteed daily returns, contact our manager on telegram to start.',
  'Can I change the delivery address for order placed yesterday evening, we are moving house next week?',
  'The contact form on your site shows an error when I attach a photo of the damaged parcel and its label.',
  'Our team enjoyed the training session very much. Could we arrange a follow-up on advanced reporting?',
  'Looking for a wedding photographer for a small ceremony in June, would you share your packages and prices?',
  'Get more followers and likes instantly, real accounts, no password needed, packages start very cheap.',
];
