// Code generated from Go's lib/time/zoneinfo.zip (zone names) and
// PostgreSQL 15's share/timezonesets/Default (abbreviations); DO NOT EDIT.

package types

// tzNames are the time zone names Go's tzdata holds, separated by
// spaces; tzName looks them up case-insensitively, as PostgreSQL does.
const tzNames = "" +
	"Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers " +
	"Africa/Asmara Africa/Asmera Africa/Bamako Africa/Bangui Africa/Banjul " +
	"Africa/Bissau Africa/Blantyre Africa/Brazzaville Africa/Bujumbura " +
	"Africa/Cairo Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar " +
	"Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala Africa/El_Aaiun " +
	"Africa/Freetown Africa/Gaborone Africa/Harare Africa/Johannesburg " +
	"Africa/Juba Africa/Kampala Africa/Khartoum Africa/Kigali Africa/Kinshasa " +
	"Africa/Lagos Africa/Libreville Africa/Lome Africa/Luanda " +
	"Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru " +
	"Africa/Mbabane Africa/Mogadishu Africa/Monrovia Africa/Nairobi " +
	"Africa/Ndjamena Africa/Niamey Africa/Nouakchott Africa/Ouagadougou " +
	"Africa/Porto-Novo Africa/Sao_Tome Africa/Timbuktu Africa/Tripoli " +
	"Africa/Tunis Africa/Windhoek America/Adak America/Anchorage " +
	"America/Anguilla America/Antigua America/Araguaina " +
	"America/Argentina/Buenos_Aires America/Argentina/Catamarca " +
	"America/Argentina/ComodRivadavia America/Argentina/Cordoba " +
	"America/Argentina/Jujuy America/Argentina/La_Rioja " +
	"America/Argentina/Mendoza America/Argentina/Rio_Gallegos " +
	"America/Argentina/Salta America/Argentina/San_Juan " +
	"America/Argentina/San_Luis America/Argentina/Tucuman " +
	"America/Argentina/Ushuaia America/Aruba America/Asuncion America/Atikokan " +
	"America/Atka America/Bahia America/Bahia_Banderas America/Barbados " +
	"America/Belem America/Belize America/Blanc-Sablon America/Boa_Vista " +
	"America/Bogota America/Boise America/Buenos_Aires America/Cambridge_Bay " +
	"America/Campo_Grande America/Cancun America/Caracas America/Catamarca " +
	"America/Cayenne America/Cayman America/Chicago America/Chihuahua " +
	"America/Ciudad_Juarez America/Coral_Harbour America/Cordoba " +
	"America/Costa_Rica America/Coyhaique America/Creston America/Cuiaba " +
	"America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek " +
	"America/Denver America/Detroit America/Dominica America/Edmonton " +
	"America/Eirunepe America/El_Salvador America/Ensenada America/Fort_Nelson " +
	"America/Fort_Wayne America/Fortaleza America/Glace_Bay America/Godthab " +
	"America/Goose_Bay America/Grand_Turk America/Grenada America/Guadeloupe " +
	"America/Guatemala America/Guayaquil America/Guyana America/Halifax " +
	"America/Havana America/Hermosillo America/Indiana/Indianapolis " +
	"America/Indiana/Knox America/Indiana/Marengo America/Indiana/Petersburg " +
	"America/Indiana/Tell_City America/Indiana/Vevay America/Indiana/Vincennes " +
	"America/Indiana/Winamac America/Indianapolis America/Inuvik " +
	"America/Iqaluit America/Jamaica America/Jujuy America/Juneau " +
	"America/Kentucky/Louisville America/Kentucky/Monticello America/Knox_IN " +
	"America/Kralendijk America/La_Paz America/Lima America/Los_Angeles " +
	"America/Louisville America/Lower_Princes America/Maceio America/Managua " +
	"America/Manaus America/Marigot America/Martinique America/Matamoros " +
	"America/Mazatlan America/Mendoza America/Menominee America/Merida " +
	"America/Metlakatla America/Mexico_City America/Miquelon America/Moncton " +
	"America/Monterrey America/Montevideo America/Montreal America/Montserrat " +
	"America/Nassau America/New_York America/Nipigon America/Nome " +
	"America/Noronha America/North_Dakota/Beulah America/North_Dakota/Center " +
	"America/North_Dakota/New_Salem America/Nuuk America/Ojinaga " +
	"America/Panama America/Pangnirtung America/Paramaribo America/Phoenix " +
	"America/Port-au-Prince America/Port_of_Spain America/Porto_Acre " +
	"America/Porto_Velho America/Puerto_Rico America/Punta_Arenas " +
	"America/Rainy_River America/Rankin_Inlet America/Recife America/Regina " +
	"America/Resolute America/Rio_Branco America/Rosario America/Santa_Isabel " +
	"America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo " +
	"America/Scoresbysund America/Shiprock America/Sitka America/St_Barthelemy " +
	"America/St_Johns America/St_Kitts America/St_Lucia America/St_Thomas " +
	"America/St_Vincent America/Swift_Current America/Tegucigalpa " +
	"America/Thule America/Thunder_Bay America/Tijuana America/Toronto " +
	"America/Tortola America/Vancouver America/Virgin America/Whitehorse " +
	"America/Winnipeg America/Yakutat America/Yellowknife Antarctica/Casey " +
	"Antarctica/Davis Antarctica/DumontDUrville Antarctica/Macquarie " +
	"Antarctica/Mawson Antarctica/McMurdo Antarctica/Palmer Antarctica/Rothera " +
	"Antarctica/South_Pole Antarctica/Syowa Antarctica/Troll Antarctica/Vostok " +
	"Arctic/Longyearbyen Asia/Aden Asia/Almaty Asia/Amman Asia/Anadyr " +
	"Asia/Aqtau Asia/Aqtobe Asia/Ashgabat Asia/Ashkhabad Asia/Atyrau " +
	"Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul Asia/Beirut " +
	"Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Choibalsan " +
	"Asia/Chongqing Asia/Chungking Asia/Colombo Asia/Dacca Asia/Damascus " +
	"Asia/Dhaka Asia/Dili Asia/Dubai Asia/Dushanbe Asia/Famagusta Asia/Gaza " +
	"Asia/Harbin Asia/Hebron Asia/Ho_Chi_Minh Asia/Hong_Kong Asia/Hovd " +
	"Asia/Irkutsk Asia/Istanbul Asia/Jakarta Asia/Jayapura Asia/Jerusalem " +
	"Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Kashgar Asia/Kathmandu " +
	"Asia/Katmandu Asia/Khandyga Asia/Kolkata Asia/Krasnoyarsk " +
	"Asia/Kuala_Lumpur Asia/Kuching Asia/Kuwait Asia/Macao Asia/Macau " +
	"Asia/Magadan Asia/Makassar Asia/Manila Asia/Muscat Asia/Nicosia " +
	"Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk Asia/Oral Asia/Phnom_Penh " +
	"Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda " +
	"Asia/Rangoon Asia/Riyadh Asia/Saigon Asia/Sakhalin Asia/Samarkand " +
	"Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Srednekolymsk Asia/Taipei " +
	"Asia/Tashkent Asia/Tbilisi Asia/Tehran Asia/Tel_Aviv Asia/Thimbu " +
	"Asia/Thimphu Asia/Tokyo Asia/Tomsk Asia/Ujung_Pandang Asia/Ulaanbaatar " +
	"Asia/Ulan_Bator Asia/Urumqi Asia/Ust-Nera Asia/Vientiane Asia/Vladivostok " +
	"Asia/Yakutsk Asia/Yangon Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores " +
	"Atlantic/Bermuda Atlantic/Canary Atlantic/Cape_Verde Atlantic/Faeroe " +
	"Atlantic/Faroe Atlantic/Jan_Mayen Atlantic/Madeira Atlantic/Reykjavik " +
	"Atlantic/South_Georgia Atlantic/St_Helena Atlantic/Stanley Australia/ACT " +
	"Australia/Adelaide Australia/Brisbane Australia/Broken_Hill " +
	"Australia/Canberra Australia/Currie Australia/Darwin Australia/Eucla " +
	"Australia/Hobart Australia/LHI Australia/Lindeman Australia/Lord_Howe " +
	"Australia/Melbourne Australia/NSW Australia/North Australia/Perth " +
	"Australia/Queensland Australia/South Australia/Sydney Australia/Tasmania " +
	"Australia/Victoria Australia/West Australia/Yancowinna Brazil/Acre " +
	"Brazil/DeNoronha Brazil/East Brazil/West CET CST6CDT Canada/Atlantic " +
	"Canada/Central Canada/Eastern Canada/Mountain Canada/Newfoundland " +
	"Canada/Pacific Canada/Saskatchewan Canada/Yukon Chile/Continental " +
	"Chile/EasterIsland Cuba EET EST EST5EDT Egypt Eire Etc/GMT Etc/GMT+0 " +
	"Etc/GMT+1 Etc/GMT+10 Etc/GMT+11 Etc/GMT+12 Etc/GMT+2 Etc/GMT+3 Etc/GMT+4 " +
	"Etc/GMT+5 Etc/GMT+6 Etc/GMT+7 Etc/GMT+8 Etc/GMT+9 Etc/GMT-0 Etc/GMT-1 " +
	"Etc/GMT-10 Etc/GMT-11 Etc/GMT-12 Etc/GMT-13 Etc/GMT-14 Etc/GMT-2 " +
	"Etc/GMT-3 Etc/GMT-4 Etc/GMT-5 Etc/GMT-6 Etc/GMT-7 Etc/GMT-8 Etc/GMT-9 " +
	"Etc/GMT0 Etc/Greenwich Etc/UCT Etc/UTC Etc/Universal Etc/Zulu " +
	"Europe/Amsterdam Europe/Andorra Europe/Astrakhan Europe/Athens " +
	"Europe/Belfast Europe/Belgrade Europe/Berlin Europe/Bratislava " +
	"Europe/Brussels Europe/Bucharest Europe/Budapest Europe/Busingen " +
	"Europe/Chisinau Europe/Copenhagen Europe/Dublin Europe/Gibraltar " +
	"Europe/Guernsey Europe/Helsinki Europe/Isle_of_Man Europe/Istanbul " +
	"Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov Europe/Kyiv " +
	"Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg " +
	"Europe/Madrid Europe/Malta Europe/Mariehamn Europe/Minsk Europe/Monaco " +
	"Europe/Moscow Europe/Nicosia Europe/Oslo Europe/Paris Europe/Podgorica " +
	"Europe/Prague Europe/Riga Europe/Rome Europe/Samara Europe/San_Marino " +
	"Europe/Sarajevo Europe/Saratov Europe/Simferopol Europe/Skopje " +
	"Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane " +
	"Europe/Tiraspol Europe/Ulyanovsk Europe/Uzhgorod Europe/Vaduz " +
	"Europe/Vatican Europe/Vienna Europe/Vilnius Europe/Volgograd " +
	"Europe/Warsaw Europe/Zagreb Europe/Zaporozhye Europe/Zurich Factory GB " +
	"GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST Hongkong Iceland " +
	"Indian/Antananarivo Indian/Chagos Indian/Christmas Indian/Cocos " +
	"Indian/Comoro Indian/Kerguelen Indian/Mahe Indian/Maldives " +
	"Indian/Mauritius Indian/Mayotte Indian/Reunion Iran Israel Jamaica Japan " +
	"Kwajalein Libya MET MST MST7MDT Mexico/BajaNorte Mexico/BajaSur " +
	"Mexico/General NZ NZ-CHAT Navajo PRC PST8PDT Pacific/Apia " +
	"Pacific/Auckland Pacific/Bougainville Pacific/Chatham Pacific/Chuuk " +
	"Pacific/Easter Pacific/Efate Pacific/Enderbury Pacific/Fakaofo " +
	"Pacific/Fiji Pacific/Funafuti Pacific/Galapagos Pacific/Gambier " +
	"Pacific/Guadalcanal Pacific/Guam Pacific/Honolulu Pacific/Johnston " +
	"Pacific/Kanton Pacific/Kiritimati Pacific/Kosrae Pacific/Kwajalein " +
	"Pacific/Majuro Pacific/Marquesas Pacific/Midway Pacific/Nauru " +
	"Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago " +
	"Pacific/Palau Pacific/Pitcairn Pacific/Pohnpei Pacific/Ponape " +
	"Pacific/Port_Moresby Pacific/Rarotonga Pacific/Saipan Pacific/Samoa " +
	"Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk Pacific/Wake " +
	"Pacific/Wallis Pacific/Yap Poland Portugal ROC ROK Singapore Turkey UCT " +
	"US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana US/Eastern " +
	"US/Hawaii US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa " +
	"UTC Universal W-SU WET Zulu"

// tzFixedAbbrevs are PostgreSQL's default time zone abbreviations with
// a fixed offset: seconds east of UTC, by lower-cased abbreviation.
var tzFixedAbbrevs = map[string]int32{
	"eat":    10800,
	"sast":   7200,
	"wat":    3600,
	"act":    -18000,
	"akdt":   -28800,
	"akst":   -32400,
	"bot":    -14400,
	"bra":    -10800,
	"brst":   -7200,
	"brt":    -10800,
	"cot":    -18000,
	"cdt":    -18000,
	"clst":   -10800,
	"cst":    -21600,
	"edt":    -14400,
	"egst":   0,
	"egt":    -3600,
	"est":    -18000,
	"fnt":    -7200,
	"fnst":   -3600,
	"gft":    -10800,
	"mdt":    -21600,
	"mst":    -25200,
	"ndt":    -9000,
	"nft":    -12600,
	"nst":    -12600,
	"pet":    -18000,
	"pdt":    -25200,
	"pmdt":   -7200,
	"pmst":   -10800,
	"pst":    -28800,
	"pyst":   -10800,
	"uyst":   -7200,
	"uyt":    -10800,
	"wgst":   -7200,
	"wgt":    -10800,
	"ddut":   36000,
	"aft":    16200,
	"almt":   21600,
	"almst":  25200,
	"amt":    -14400,
	"bdt":    21600,
	"bnt":    28800,
	"bort":   28800,
	"btt":    21600,
	"cct":    28800,
	"hkt":    28800,
	"ict":    25200,
	"idt":    10800,
	"irt":    12600,
	"ist":    7200,
	"jayt":   32400,
	"jst":    32400,
	"kdt":    36000,
	"kgst":   21600,
	"kst":    32400,
	"mmt":    23400,
	"myt":    28800,
	"npt":    20700,
	"pht":    28800,
	"pkt":    18000,
	"pkst":   21600,
	"tjt":    18000,
	"ulast":  32400,
	"uzst":   21600,
	"uzt":    18000,
	"xjt":    21600,
	"yekst":  21600,
	"adt":    -10800,
	"ast":    -14400,
	"azost":  0,
	"azot":   -3600,
	"acsst":  37800,
	"acdt":   37800,
	"acst":   34200,
	"acwst":  31500,
	"aesst":  39600,
	"aedt":   39600,
	"aest":   36000,
	"awsst":  32400,
	"awst":   28800,
	"cadt":   37800,
	"cast":   34200,
	"lhst":   37800,
	"ligt":   36000,
	"nzt":    43200,
	"sadt":   37800,
	"wadt":   28800,
	"wast":   25200,
	"wdt":    32400,
	"gmt":    0,
	"uct":    0,
	"ut":     0,
	"utc":    0,
	"z":      0,
	"zulu":   0,
	"bst":    3600,
	"bdst":   7200,
	"cest":   7200,
	"cet":    3600,
	"cetdst": 7200,
	"eest":   10800,
	"eet":    7200,
	"eetdst": 10800,
	"fet":    10800,
	"mest":   7200,
	"mesz":   7200,
	"met":    3600,
	"metdst": 7200,
	"mez":    3600,
	"msd":    14400,
	"wet":    0,
	"wetdst": 3600,
	"cxt":    25200,
	"mut":    14400,
	"must":   18000,
	"mvt":    18000,
	"ret":    14400,
	"sct":    14400,
	"tft":    18000,
	"chadt":  49500,
	"chast":  45900,
	"chut":   36000,
	"fjst":   46800,
	"fjt":    43200,
	"galt":   -21600,
	"gamt":   -32400,
	"gilt":   43200,
	"hst":    -36000,
	"mart":   -34200,
	"mht":    43200,
	"mpt":    36000,
	"nzdt":   46800,
	"nzst":   43200,
	"pgt":    36000,
	"pont":   39600,
	"pwt":    32400,
	"taht":   -36000,
	"tot":    46800,
	"trut":   36000,
	"tvt":    43200,
	"vut":    39600,
	"wakt":   43200,
	"wft":    43200,
	"yapt":   36000,
}

// tzDynamicAbbrevs are PostgreSQL's default time zone abbreviations
// whose meaning follows a zone's history, by lower-cased abbreviation.
var tzDynamicAbbrevs = map[string]string{
	"art":   "America/Argentina/Buenos_Aires",
	"arst":  "America/Argentina/Buenos_Aires",
	"clt":   "America/Santiago",
	"gyt":   "America/Guyana",
	"pyt":   "America/Asuncion",
	"vet":   "America/Caracas",
	"davt":  "Antarctica/Davis",
	"mawt":  "Antarctica/Mawson",
	"amst":  "Asia/Yerevan",
	"anast": "Asia/Anadyr",
	"anat":  "Asia/Anadyr",
	"azst":  "Asia/Baku",
	"azt":   "Asia/Baku",
	"gest":  "Asia/Tbilisi",
	"get":   "Asia/Tbilisi",
	"irkst": "Asia/Irkutsk",
	"irkt":  "Asia/Irkutsk",
	"kgt":   "Asia/Bishkek",
	"krast": "Asia/Krasnoyarsk",
	"krat":  "Asia/Krasnoyarsk",
	"lkt":   "Asia/Colombo",
	"magst": "Asia/Magadan",
	"magt":  "Asia/Magadan",
	"novst": "Asia/Novosibirsk",
	"novt":  "Asia/Novosibirsk",
	"omsst": "Asia/Omsk",
	"omst":  "Asia/Omsk",
	"petst": "Asia/Kamchatka",
	"pett":  "Asia/Kamchatka",
	"sgt":   "Asia/Singapore",
	"tmt":   "Asia/Ashgabat",
	"ulat":  "Asia/Ulaanbaatar",
	"vlast": "Asia/Vladivostok",
	"vlat":  "Asia/Vladivostok",
	"yakst": "Asia/Yakutsk",
	"yakt":  "Asia/Yakutsk",
	"yekt":  "Asia/Yekaterinburg",
	"fkst":  "Atlantic/Stanley",
	"fkt":   "Atlantic/Stanley",
	"lhdt":  "Australia/Lord_Howe",
	"msk":   "Europe/Moscow",
	"volt":  "Europe/Volgograd",
	"iot":   "Indian/Chagos",
	"ckt":   "Pacific/Rarotonga",
	"easst": "Pacific/Easter",
	"east":  "Pacific/Easter",
	"kost":  "Pacific/Kosrae",
	"lint":  "Pacific/Kiritimati",
	"nut":   "Pacific/Niue",
	"tkt":   "Pacific/Fakaofo",
}
