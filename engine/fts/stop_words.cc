// Stop words per language: the frequent function words MongoDB's text
// search documents it drops ("drops language-specific stop words (e.g. in
// English, the, an, a, and, etc.)"). Written for tigerdoc from common
// knowledge of each language; not MongoDB's own lists, which are longer, so
// a rarer function word may be indexed here where MongoDB drops it.

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/fts/fts_language.h"

namespace tigerdoc::fts {
namespace {

constexpr const char* kEnglish =
    "a about above after again against all am an and any are as at be because been before "
    "being below between both but by can could did do does doing down during each few for from "
    "further had has have having he her here hers herself him himself his how i if in into is it "
    "its itself just me more most my myself no nor not now of off on once only or other our ours "
    "ourselves out over own same she should so some such than that the their theirs them "
    "themselves then there these they this those through to too under until up very was we were "
    "what when where which while who whom why will with would you your yours yourself yourselves";
constexpr const char* kFrench =
    "au aux avec ce ces dans de des du elle en et eux il je la le les leur lui ma mais me même "
    "mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi "
    "ton tu un une vos votre vous c d j l m n s t y été est sont";
constexpr const char* kGerman =
    "aber alle als also am an auch auf aus bei bin bis bist da damit dass dem den der des die "
    "doch dort du durch ein eine einem einen einer eines er es für hatte hat ich ihr im in ist "
    "ja kann mit nach nicht noch nun oder sich sie sind so über um und uns unter vom von vor war "
    "was weil wenn wie wir wird zu zum zur";
constexpr const char* kSpanish =
    "a al algo como con de del el ella ellos en entre era es esta este esto ha hay la las le les "
    "lo los más me mi muy no nos o para pero por que se sin sobre su sus también te un una uno y "
    "ya yo";
constexpr const char* kItalian =
    "a al alla alle anche che chi ci con da dal dei del della di e ed gli ha ho i il in io la le "
    "lo ma mi ne nel nella non o per più questo se si sono su tra un una uno";
constexpr const char* kPortuguese =
    "a ao aos as com da das de do dos e ela ele em entre era essa esse eu foi há isso já mais "
    "mas me muito na nas no nos não o os ou para pela pelo por que se sem seu sua também um uma";
constexpr const char* kDutch =
    "aan al als bij dan dat de der die dit door een en er had heb het hij hoe ik in is je kan "
    "maar met mij niet nog of om ook op over te tot uit van voor was wat we wel zij zijn zo";
constexpr const char* kDanish =
    "af alle at de den der det du efter eller en er et for fra han har hun i ikke jeg med men "
    "mig og om på sig som til var vi";
constexpr const char* kNorwegian =
    "alle at av da de den der det du eller en er et for fra han har hun i ikke jeg med men og "
    "om på seg som til var vi";
constexpr const char* kSwedish =
    "alla att av de den det du efter eller en ett för från han har hon i inte jag med men och "
    "om på sig som till var vi är";
constexpr const char* kFinnish =
    "ja jos kun mutta niin nyt ole oli on se sekä tai tämä että ei hän he me minä mitä mukaan "
    "myös ne sen siitä sinä te vai";
constexpr const char* kRussian =
    "а без бы в во вы да для до его ее если есть же за и из или им их к как ко когда кто ли мы "
    "на не нет но о об он она они от по при с так то ты у уже что это я";
constexpr const char* kHungarian =
    "a az azt be de egy el és hogy is jó már meg mert mi mint nem sem szerint van volt";
constexpr const char* kRomanian =
    "a al ale că ce cu de din este în la mai nu o pe pentru sa se și un una";
constexpr const char* kTurkish =
    "ama bir bu da de daha diye en gibi için ile ise ki mi ne o olan olarak sonra ve veya ya";

std::unordered_set<std::string> Split(const char* words) {
  std::unordered_set<std::string> out;
  std::string_view rest(words);
  while (!rest.empty()) {
    size_t space = rest.find(' ');
    std::string_view word = rest.substr(0, space);
    if (!word.empty()) out.emplace(word);
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return out;
}

const std::unordered_map<std::string, std::unordered_set<std::string>>& Lists() {
  static const auto* lists = new std::unordered_map<std::string, std::unordered_set<std::string>>{
      {"english", Split(kEnglish)},       {"french", Split(kFrench)},
      {"german", Split(kGerman)},         {"spanish", Split(kSpanish)},
      {"italian", Split(kItalian)},       {"portuguese", Split(kPortuguese)},
      {"dutch", Split(kDutch)},           {"danish", Split(kDanish)},
      {"norwegian", Split(kNorwegian)},   {"swedish", Split(kSwedish)},
      {"finnish", Split(kFinnish)},       {"russian", Split(kRussian)},
      {"hungarian", Split(kHungarian)},   {"romanian", Split(kRomanian)},
      {"turkish", Split(kTurkish)},
  };
  return *lists;
}

}  // namespace

bool IsStopWord(const Language& language, std::string_view word) {
  auto it = Lists().find(language.name);
  return it != Lists().end() && it->second.count(std::string(word)) != 0;
}

}  // namespace tigerdoc::fts
