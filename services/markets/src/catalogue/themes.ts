/**
 * The themes the seeded catalogue is generated from. All people, parties, clubs, films and
 * places not otherwise public are invented; prices, volumes and books come from the generator.
 */

/** A neg-risk event: mutually exclusive candidates, one binary market each. */
export type CandidateTheme = {
  title: string;
  category: string;
  tags: string[];
  endDate: string;
  candidates: string[];
  /** Resolved and closed, with this candidate winning. */
  winner?: string;
  /** Candidates already out (their markets closed and resolved No) in an open event. */
  eliminated?: string[];
  /** How a candidate's question reads. */
  question: (candidate: string) => string;
};

/** Several independent thresholds on one quantity (not neg-risk). */
export type ThresholdTheme = {
  title: string;
  category: string;
  tags: string[];
  endDate: string;
  thresholds: string[];
  question: (threshold: string) => string;
};

/** A single yes/no question; `resolved` closes it with that answer. */
export type BinaryTheme = {
  title: string;
  category: string;
  tags: string[];
  endDate: string;
  resolved?: "Yes" | "No";
};

/** A game between two teams: moneyline, spread and total markets. */
export type MatchTheme = {
  home: string;
  away: string;
  league: string;
  date: string;
  spread: number;
  total: number;
  /** Played and resolved: the moneyline winner. */
  winner?: "home" | "away";
};

export const CANDIDATE_THEMES: CandidateTheme[] = [
  {
    title: "Presidential Election Winner 2028",
    category: "Politics",
    tags: ["Politics", "Elections", "2028"],
    endDate: "2028-11-07T12:00:00.000Z",
    candidates: [
      "Avery Calloway",
      "Marisol Ortega",
      "Desmond Harte",
      "Priya Ramanathan",
      "Colton Reyes",
      "Evelyn Strauss",
      "Jonah Whitfield",
      "Keisha Monroe",
      "Franklin Adeyemi",
      "Lucia Brandt",
      "Theodore Vance",
      "Nadia Kowalski",
    ],
    eliminated: ["Franklin Adeyemi", "Theodore Vance"],
    question: (name) => `Will ${name} win the 2028 presidential election?`,
  },
  {
    title: "Fed decision in December?",
    category: "Economy",
    tags: ["Economy", "Fed", "Interest Rates"],
    endDate: "2026-12-16T19:00:00.000Z",
    candidates: ["50+ bps decrease", "25 bps decrease", "No change", "25+ bps increase"],
    question: (option) => `Will the Fed announce a ${option} after the December 2026 meeting?`,
  },
  {
    title: "How many Fed rate cuts in 2027?",
    category: "Economy",
    tags: ["Economy", "Fed"],
    endDate: "2027-12-31T23:59:00.000Z",
    candidates: ["0", "1", "2", "3", "4", "5", "6+"],
    question: (n) => `Will the Fed cut rates ${n} times in 2027?`,
  },
  {
    title: "Best Picture Winner 2027",
    category: "Culture",
    tags: ["Culture", "Awards", "Movies"],
    endDate: "2027-03-14T23:00:00.000Z",
    candidates: [
      "The Lantern Keeper",
      "Salt and Iron",
      "Parallel Summer",
      "A Quiet Harbor",
      "Nightjar",
      "The Cartographer's Daughter",
      "Glass Orchard",
      "Red Meridian",
      "Small Hours",
      "Everything Hums",
    ],
    question: (film) => `Will "${film}" win Best Picture at the 2027 awards?`,
  },
  {
    title: "Continental Cup Winner 2026-27",
    category: "Sports",
    tags: ["Sports", "Soccer"],
    endDate: "2027-05-29T21:00:00.000Z",
    candidates: [
      "Real Castellon",
      "FC Nordhavn",
      "Atletico Vareza",
      "Borussia Elmstadt",
      "Olympique Lunel",
      "Sporting Alvor",
      "AC Verano",
      "Dynamo Karsk",
      "Ajax Westmeer",
      "Celtic Rovers",
      "Inter Lucerna",
      "Benfica do Sul",
      "Galata United",
      "PSV Dorne",
      "Bayern Isarfeld",
      "Arsenal Thames",
    ],
    eliminated: ["Dynamo Karsk", "Galata United", "PSV Dorne"],
    question: (club) => `Will ${club} win the 2026-27 Continental Cup?`,
  },
  {
    title: "Pro Basketball Champion 2027",
    category: "Sports",
    tags: ["Sports", "Basketball"],
    endDate: "2027-06-20T23:00:00.000Z",
    candidates: [
      "Harbor City Hawks",
      "Riverton Rams",
      "Mesa Suns",
      "Lakeshore Tides",
      "Granite Peaks",
      "Capital Senators",
      "Bayview Pelicans",
      "Ironwood Foundry",
      "Prairie Comets",
      "Summit Bears",
      "Delta Gators",
      "Northgate Wolves",
      "Copper Canyon Coyotes",
      "Evergreen Lumberjacks",
      "Metro Knights",
      "Sunset Waves",
    ],
    question: (team) => `Will the ${team} win the 2027 championship?`,
  },
  {
    title: "Largest company end of 2027?",
    category: "Finance",
    tags: ["Finance", "Stocks"],
    endDate: "2027-12-31T23:59:00.000Z",
    candidates: ["Nvidia", "Microsoft", "Apple", "Alphabet", "Amazon", "Saudi Aramco", "Meta", "Broadcom"],
    question: (company) =>
      `Will ${company} be the largest company in the world by market cap on December 31, 2027?`,
  },
  {
    title: "Highest temperature in Lisbon on July 14, 2027?",
    category: "Weather",
    tags: ["Weather", "Climate"],
    endDate: "2027-07-14T23:59:00.000Z",
    candidates: ["25°C or below", "26°C", "27°C", "28°C", "29°C", "30°C", "31°C", "32°C or higher"],
    question: (range) => `Will the highest temperature in Lisbon be ${range} on July 14, 2027?`,
  },
  {
    title: "Bitcoin price on December 31, 2026?",
    category: "Crypto",
    tags: ["Crypto", "Bitcoin"],
    endDate: "2026-12-31T23:59:00.000Z",
    candidates: [
      "<$60k",
      "$60k-70k",
      "$70k-80k",
      "$80k-90k",
      "$90k-100k",
      "$100k-110k",
      "$110k-120k",
      "$120k-130k",
      "$130k-140k",
      ">$140k",
    ],
    question: (range) => `Will the price of Bitcoin be ${range} on December 31, 2026?`,
  },
  {
    title: "Most gold medals at the 2028 Summer Games?",
    category: "Sports",
    tags: ["Sports", "Olympics"],
    endDate: "2028-08-13T23:59:00.000Z",
    candidates: [
      "United States",
      "China",
      "Japan",
      "Australia",
      "France",
      "Great Britain",
      "Germany",
      "Italy",
    ],
    question: (country) => `Will ${country} win the most gold medals at the 2028 Summer Games?`,
  },
  {
    title: "Person of the Year 2026",
    category: "Culture",
    tags: ["Culture", "Media"],
    endDate: "2026-12-10T15:00:00.000Z",
    candidates: [
      "Ilse Marchetti",
      "Rohan Deshpande",
      "Camille Okafor",
      "Viktor Lindqvist",
      "Harriet Osei",
      "Mateo Quintero",
      "Greta Holm",
      "Samuel Achterberg",
      "Yuki Tanabe",
      "Ines Carvalho",
    ],
    question: (name) => `Will ${name} be named Person of the Year 2026?`,
  },
  {
    title: "Next Prime Minister of Freedonia",
    category: "Politics",
    tags: ["Politics", "World"],
    endDate: "2027-09-30T23:59:00.000Z",
    candidates: [
      "Oskar Brenner",
      "Leonie Vass",
      "Tomasz Halloran",
      "Aurelie Fontaine",
      "Benedikt Sorensen",
      "Clara Wendt",
      "Rafael Duarte",
      "Mina Petrova",
    ],
    question: (name) => `Will ${name} be the next Prime Minister of Freedonia?`,
  },
  {
    title: "Song Contest Winner 2026",
    category: "Culture",
    tags: ["Culture", "Music"],
    endDate: "2026-05-16T23:00:00.000Z",
    candidates: [
      "Sweden",
      "Italy",
      "Ukraine",
      "France",
      "Norway",
      "Israel",
      "Finland",
      "Switzerland",
      "Croatia",
      "Netherlands",
      "Spain",
      "Greece",
    ],
    winner: "Finland",
    question: (country) => `Will ${country} win the 2026 Song Contest?`,
  },
  {
    title: "Port Alder Mayoral Election 2026",
    category: "Politics",
    tags: ["Politics", "Elections", "Local"],
    endDate: "2026-11-03T23:59:00.000Z",
    candidates: ["Dana Whitcombe", "Luis Ferreira", "Hannah Bergstrom", "Marcus Obi", "Other"],
    winner: "Luis Ferreira",
    question: (name) => `Will ${name} win the 2026 Port Alder mayoral election?`,
  },
];

export const THRESHOLD_THEMES: ThresholdTheme[] = [
  {
    title: "Bitcoin above ___ on December 31?",
    category: "Crypto",
    tags: ["Crypto", "Bitcoin"],
    endDate: "2026-12-31T23:59:00.000Z",
    thresholds: [
      "$70,000",
      "$80,000",
      "$90,000",
      "$100,000",
      "$110,000",
      "$120,000",
      "$130,000",
      "$150,000",
      "$175,000",
      "$200,000",
    ],
    question: (level) => `Will Bitcoin be above ${level} on December 31, 2026?`,
  },
  {
    title: "Ethereum above ___ on December 31?",
    category: "Crypto",
    tags: ["Crypto", "Ethereum"],
    endDate: "2026-12-31T23:59:00.000Z",
    thresholds: ["$2,000", "$2,500", "$3,000", "$3,500", "$4,000", "$5,000", "$6,000", "$8,000"],
    question: (level) => `Will Ethereum be above ${level} on December 31, 2026?`,
  },
  {
    title: "Gold above ___ at the end of 2027?",
    category: "Finance",
    tags: ["Finance", "Commodities"],
    endDate: "2027-12-31T23:59:00.000Z",
    thresholds: ["$3,000", "$3,500", "$4,000", "$4,500", "$5,000", "$6,000"],
    question: (level) => `Will gold close 2027 above ${level} per ounce?`,
  },
  {
    title: "How many named Atlantic storms in 2027?",
    category: "Weather",
    tags: ["Weather", "Hurricanes"],
    endDate: "2027-11-30T23:59:00.000Z",
    thresholds: ["10", "13", "15", "17", "20", "23"],
    question: (count) => `Will there be at least ${count} named Atlantic storms in 2027?`,
  },
];

export const BINARY_THEMES: BinaryTheme[] = [
  {
    title: "US recession in 2027?",
    category: "Economy",
    tags: ["Economy"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will inflation exceed 3% in 2027?",
    category: "Economy",
    tags: ["Economy", "Inflation"],
    endDate: "2028-01-15T13:30:00.000Z",
  },
  {
    title: "Will the unemployment rate reach 5% by June 2027?",
    category: "Economy",
    tags: ["Economy", "Jobs"],
    endDate: "2027-07-02T12:30:00.000Z",
  },
  {
    title: "Will Bitcoin reach $150,000 in 2026?",
    category: "Crypto",
    tags: ["Crypto", "Bitcoin"],
    endDate: "2026-12-31T23:59:00.000Z",
  },
  {
    title: "Will a spot Solana ETF be approved by March 2027?",
    category: "Crypto",
    tags: ["Crypto", "ETFs"],
    endDate: "2027-03-31T23:59:00.000Z",
  },
  {
    title: "Will Ethereum flip Bitcoin by market cap in 2027?",
    category: "Crypto",
    tags: ["Crypto"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will a crewed lunar landing happen before 2028?",
    category: "Science",
    tags: ["Science", "Space"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will a reusable rocket complete 30 flights by 2027?",
    category: "Science",
    tags: ["Science", "Space"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will an AI model top the Grand Puzzle benchmark in 2027?",
    category: "Tech",
    tags: ["Tech", "AI"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will OpenVista release a new flagship model before April 2027?",
    category: "Tech",
    tags: ["Tech", "AI"],
    endDate: "2027-03-31T23:59:00.000Z",
  },
  {
    title: "Will Freedonia hold a snap election in 2027?",
    category: "Politics",
    tags: ["Politics", "World"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will the Harbor Bridge reopen by September 2027?",
    category: "Politics",
    tags: ["Politics", "Infrastructure"],
    endDate: "2027-09-30T23:59:00.000Z",
  },
  {
    title: "Will a Category 5 hurricane make landfall in 2027?",
    category: "Weather",
    tags: ["Weather", "Hurricanes"],
    endDate: "2027-11-30T23:59:00.000Z",
  },
  {
    title: "Will 2027 be the hottest year on record?",
    category: "Weather",
    tags: ["Weather", "Climate"],
    endDate: "2028-01-20T23:59:00.000Z",
  },
  {
    title: "Will Lisbon see snow in 2027?",
    category: "Weather",
    tags: ["Weather"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: 'Will "Red Meridian" gross $1 billion worldwide?',
    category: "Culture",
    tags: ["Culture", "Movies"],
    endDate: "2027-06-30T23:59:00.000Z",
  },
  {
    title: "Will the Moonwake tour be the highest-grossing tour of 2027?",
    category: "Culture",
    tags: ["Culture", "Music"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will a chess engine lose a rated game to a human in 2027?",
    category: "Sports",
    tags: ["Sports", "Chess"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will the marathon world record be broken in 2027?",
    category: "Sports",
    tags: ["Sports", "Running"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will the Fed chair be replaced before July 2027?",
    category: "Economy",
    tags: ["Economy", "Fed"],
    endDate: "2027-06-30T23:59:00.000Z",
  },
  {
    title: "Will gas average above $4 a gallon in summer 2027?",
    category: "Economy",
    tags: ["Economy", "Energy"],
    endDate: "2027-09-01T23:59:00.000Z",
  },
  {
    title: "Will Northwind Air merge with Coastal Jet in 2027?",
    category: "Finance",
    tags: ["Finance", "M&A"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  {
    title: "Will Nvidia close above $250 on June 30, 2027?",
    category: "Finance",
    tags: ["Finance", "Stocks"],
    endDate: "2027-06-30T20:00:00.000Z",
  },
  {
    title: "Will a new Pope be elected in 2027?",
    category: "World",
    tags: ["World", "Religion"],
    endDate: "2027-12-31T23:59:00.000Z",
  },
  // Resolved.
  {
    title: "Will Bitcoin hit $120,000 by October 2026?",
    category: "Crypto",
    tags: ["Crypto", "Bitcoin"],
    endDate: "2026-10-31T23:59:00.000Z",
    resolved: "Yes",
  },
  {
    title: "Will the Fed cut rates in September 2026?",
    category: "Economy",
    tags: ["Economy", "Fed"],
    endDate: "2026-09-17T18:00:00.000Z",
    resolved: "Yes",
  },
  {
    title: "Will Freedonia leave the trade union in 2026?",
    category: "Politics",
    tags: ["Politics", "World"],
    endDate: "2026-10-01T23:59:00.000Z",
    resolved: "No",
  },
  {
    title: "Will a crewed Mars flyby launch in 2026?",
    category: "Science",
    tags: ["Science", "Space"],
    endDate: "2026-10-31T23:59:00.000Z",
    resolved: "No",
  },
  {
    title: 'Will "Nightjar" open above $100 million?',
    category: "Culture",
    tags: ["Culture", "Movies"],
    endDate: "2026-08-10T23:59:00.000Z",
    resolved: "Yes",
  },
  {
    title: "Will Lisbon reach 40°C in August 2026?",
    category: "Weather",
    tags: ["Weather"],
    endDate: "2026-08-31T23:59:00.000Z",
    resolved: "No",
  },
];

export const MATCH_THEMES: MatchTheme[] = [
  {
    home: "Harbor City Hawks",
    away: "Riverton Rams",
    league: "Pro Basketball",
    date: "2026-11-28T00:30:00.000Z",
    spread: 4.5,
    total: 221.5,
  },
  {
    home: "Mesa Suns",
    away: "Lakeshore Tides",
    league: "Pro Basketball",
    date: "2026-11-28T03:00:00.000Z",
    spread: 2.5,
    total: 228.5,
  },
  {
    home: "Granite Peaks",
    away: "Capital Senators",
    league: "Pro Basketball",
    date: "2026-11-29T01:00:00.000Z",
    spread: 6.5,
    total: 214.5,
  },
  {
    home: "Bayview Pelicans",
    away: "Ironwood Foundry",
    league: "Pro Basketball",
    date: "2026-11-30T00:00:00.000Z",
    spread: 1.5,
    total: 232.5,
  },
  {
    home: "Real Castellon",
    away: "FC Nordhavn",
    league: "Continental Cup",
    date: "2026-12-02T20:00:00.000Z",
    spread: 0.5,
    total: 2.5,
  },
  {
    home: "Atletico Vareza",
    away: "Borussia Elmstadt",
    league: "Continental Cup",
    date: "2026-12-03T20:00:00.000Z",
    spread: 0.5,
    total: 2.5,
  },
  {
    home: "Olympique Lunel",
    away: "Sporting Alvor",
    league: "Continental Cup",
    date: "2026-12-09T20:00:00.000Z",
    spread: 1.5,
    total: 3.5,
  },
  {
    home: "Summit Bears",
    away: "Delta Gators",
    league: "Pro Basketball",
    date: "2026-11-14T00:30:00.000Z",
    spread: 3.5,
    total: 219.5,
    winner: "away",
  },
  {
    home: "Inter Lucerna",
    away: "Celtic Rovers",
    league: "Continental Cup",
    date: "2026-11-05T20:00:00.000Z",
    spread: 0.5,
    total: 2.5,
    winner: "home",
  },
  {
    home: "Northgate Wolves",
    away: "Metro Knights",
    league: "Pro Basketball",
    date: "2026-11-18T01:00:00.000Z",
    spread: 5.5,
    total: 225.5,
    winner: "home",
  },
];
