/**
 * Time zone names as the API takes them: IANA tz database names only, spelled (case included) as
 * IANA spells them. `UTC` is accepted: it is an IANA name (a link to `Etc/UTC` in the database's
 * `backward` file) and the accounts' default. UTC offsets (`+05:00`), `Z` and other spellings
 * (`utc`, `europe/berlin`) are refused, although the runtime's `Intl` would take them.
 */

/** A name made of IANA's characters: `Area/Location[/Sub]` or a single word, never an offset. */
const NAME_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * IANA names (tzdb 2025b) that Node's ICU answers under another name (`Asia/Kolkata` resolves as
 * `Asia/Calcutta`, `Etc/UTC` as `UTC`), so their spelling cannot be checked against what `Intl`
 * resolves them to: they are matched here as written. Every other IANA name resolves to itself.
 */
const RESOLVED_UNDER_ANOTHER_NAME: ReadonlySet<string> = new Set(
  [
    "Africa/Asmara Africa/Timbuktu",
    "America/Argentina/Buenos_Aires America/Argentina/Catamarca America/Argentina/ComodRivadavia",
    "America/Argentina/Cordoba America/Argentina/Jujuy America/Argentina/Mendoza America/Atikokan",
    "America/Atka America/Ensenada America/Fort_Wayne America/Indiana/Indianapolis",
    "America/Kentucky/Louisville America/Knox_IN America/Montreal America/Nipigon America/Nuuk",
    "America/Pangnirtung America/Porto_Acre America/Rainy_River America/Rosario",
    "America/Santa_Isabel America/Shiprock America/Thunder_Bay America/Virgin America/Yellowknife",
    "Antarctica/South_Pole",
    "Asia/Ashkhabad Asia/Choibalsan Asia/Chongqing Asia/Chungking Asia/Dacca Asia/Harbin",
    "Asia/Ho_Chi_Minh Asia/Istanbul Asia/Kashgar Asia/Kathmandu Asia/Kolkata Asia/Macao",
    "Asia/Tel_Aviv Asia/Thimbu Asia/Ujung_Pandang Asia/Ulan_Bator Asia/Yangon",
    "Atlantic/Faroe Atlantic/Jan_Mayen",
    "Australia/ACT Australia/Canberra Australia/Currie Australia/LHI Australia/NSW",
    "Australia/North Australia/Queensland Australia/South Australia/Tasmania Australia/Victoria",
    "Australia/West Australia/Yancowinna",
    "Brazil/Acre Brazil/DeNoronha Brazil/East Brazil/West",
    "CET CST6CDT Cuba EET EST EST5EDT Egypt Eire GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST",
    "Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo",
    "PRC PST8PDT Poland Portugal ROC ROK Singapore Turkey UCT Universal W-SU WET Zulu",
    "Canada/Atlantic Canada/Central Canada/Eastern Canada/Mountain Canada/Newfoundland",
    "Canada/Pacific Canada/Saskatchewan Canada/Yukon",
    "Chile/Continental Chile/EasterIsland",
    "Etc/GMT Etc/GMT+0 Etc/GMT-0 Etc/GMT0 Etc/Greenwich Etc/UCT Etc/UTC Etc/Universal Etc/Zulu",
    "Europe/Belfast Europe/Kyiv Europe/Nicosia Europe/Tiraspol Europe/Uzhgorod Europe/Zaporozhye",
    "Mexico/BajaNorte Mexico/BajaSur Mexico/General",
    "Pacific/Chuuk Pacific/Johnston Pacific/Kanton Pacific/Pohnpei Pacific/Samoa Pacific/Yap",
    "US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana US/Eastern US/Hawaii",
    "US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa",
  ]
    .join(" ")
    .split(" "),
);

const checked = new Map<string, boolean>();

/** Whether `name` is an IANA time zone name, spelled as IANA does. */
export function isIanaTimeZone(name: string): boolean {
  const known = checked.get(name);
  if (known !== undefined) return known;
  const valid = NAME_SHAPE.test(name) && (RESOLVED_UNDER_ANOTHER_NAME.has(name) || resolvesToItself(name));
  // Remembered for well-formed names only (a bounded set); anything else is refused at once.
  if (NAME_SHAPE.test(name) && name.length <= 64 && checked.size < 2048) checked.set(name, valid);
  return valid;
}

/** Whether the runtime knows the zone and names it exactly so (its case included). */
function resolvesToItself(name: string): boolean {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone === name;
  } catch {
    return false;
  }
}
