// A vocabulary: an enum and the names of its words in one table, from which
// the count, each word's name and the list of all words follow (no parallel
// name array, no hand-kept count). LIST(X) calls X(word, "name") once per
// word, in order:
//
//   #define KC_COLOURS(X) X(red, "red") X(light_blue, "light blue")
//   KC_VOCABULARY(Colour, std::uint8_t, kColours, KC_COLOURS)
//
// defines `enum class Colour : std::uint8_t { red, light_blue }` and
// `kColours`, with kColours.size() == 2, kColours.name(Colour::light_blue)
// == "light blue", kColours.find("red") == Colour::red and kColours.all()
// == {red, light_blue}. (A comment on a
// word inside LIST must be a /* */ one: a // comment would swallow the
// macro's continuation.)
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace kc {

template <class E, std::size_t N>
struct Vocabulary {
  std::array<std::string_view, N> names;

  static constexpr std::size_t size() { return N; }
  constexpr std::string_view name(E e) const {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
  }
  // The word named `text` (a document read back), or nullopt.
  constexpr std::optional<E> find(std::string_view text) const {
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == text) return static_cast<E>(i);
    return std::nullopt;
  }
  constexpr std::array<E, N> all() const {
    std::array<E, N> words{};
    for (std::size_t i = 0; i < N; ++i) words[i] = static_cast<E>(i);
    return words;
  }
};

// A value per word of a vocabulary, indexed by the word (counts per class).
template <class E, class T, std::size_t N>
struct ByWord {
  std::array<T, N> values{};
  constexpr T& operator[](E e) { return values[static_cast<std::size_t>(e)]; }
  constexpr const T& operator[](E e) const { return values[static_cast<std::size_t>(e)]; }
};

template <class E, std::size_t N>
constexpr Vocabulary<E, N> make_vocabulary(const std::array<std::string_view, N>& names) {
  return {names};
}

}  // namespace kc

#define KC_VOCABULARY_WORD(word, text) word,
#define KC_VOCABULARY_NAME(word, text) std::string_view{text},
#define KC_VOCABULARY(Enum, Underlying, table, LIST)        \
  enum class Enum : Underlying { LIST(KC_VOCABULARY_WORD) }; \
  inline constexpr auto table = ::kc::make_vocabulary<Enum>(std::array{LIST(KC_VOCABULARY_NAME)})
