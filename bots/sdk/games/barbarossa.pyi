"""Types of Barbarossa's observation and actions, generated from its declaration by
``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.

In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).
"""

from typing import Literal, NotRequired, TypedDict

# Ask a question (phase `question`).
class Ask(TypedDict):
    ask: FeatureAsk

# Ask for a letter (phase `dwarf`).
class AskLetter(TypedDict):
    letter: LetterAsk

# An object on the board.
class ClayObject(TypedDict):
    # Its id, e.g. `o4`.
    id: str
    # The seat that made it.
    maker: int
    # The features it shows; `null` for other players' objects until creation ends.
    sculpture: list[str] | None
    # Arrows placed on it.
    arrows: int
    # The seats that placed its arrows, in order.
    solved_by: list[int]
    # Its word: on your own objects (on all once the game is over); `null` until it is created.
    word: NotRequired[str | None]

# Create an object (phase `create`).
class Create(TypedDict):
    create: Creation

# A new object: its secret word and the features its sculpture shows.
class Creation(TypedDict):
    # A word of the lexicon.
    word: str
    # Features of that word.
    sculpture: list[str]

# Use a curse token (phase `curse`): a letter or a guess.
class Curse(TypedDict):
    curse: CurseLetter | CurseGuess

# A curse that guesses a word.
class CurseGuess(TypedDict):
    guess: WordGuess

# A curse that asks for a letter.
class CurseLetter(TypedDict):
    letter: LetterAsk

# A question about an opponent's object.
class FeatureAsk(TypedDict):
    object: str
    feature: str

# A guess, public (its word only on your own guesses, on all once the game is over).
class Guess(TypedDict):
    guesser: int
    object: str
    right: bool
    curse: bool
    word: NotRequired[str]

# Guess a word (phase `question`, round 2).
class GuessWord(TypedDict):
    guess: WordGuess

# A letter you were told.
class Letter(TypedDict):
    object: str
    # A letter's position: 1 to 11, or `"last"`.
    position: int | Literal["last"]
    # One lower-case character, or `"none"`.
    letter: str

# A letter of an opponent's object.
class LetterAsk(TypedDict):
    object: str
    # A letter's position: 1 to 11, or `"last"`.
    position: int | Literal["last"]

# A letter request, public.
class LetterRequest(TypedDict):
    asker: int
    object: str
    # A letter's position: 1 to 11, or `"last"`.
    position: int | Literal["last"]
    curse: bool

# Move k spaces for k elfstones, 1 ≤ k ≤ min(6, your stones) (phase `move`).
class Move(TypedDict):
    move: int

# Let the curse window pass (phase `curse`).
Pass = TypedDict("Pass", {"pass": Literal[True]})

# A question and its answer, public.
class Question(TypedDict):
    asker: int
    object: str
    feature: str
    answer: Literal["yes", "no", "maybe", "cant_say"]

# Roll the die (phase `move`).
class Roll(TypedDict):
    roll: Literal[True]

# End the turn (phase `question`, round 2).
class StopAsking(TypedDict):
    stop: Literal[True]

# A guess at an opponent's word.
class WordGuess(TypedDict):
    object: str
    # Your guess.
    word: str

# The same fields in every phase; fields that do not apply are `null` or empty.
class Observation(TypedDict):
    # Your seat (0-based).
    seat: int
    # 3 or 4.
    players: int
    # `create`, `move`, `dwarf`, `question`, `curse` or `over`.
    phase: Literal["create", "move", "dwarf", "question", "curse", "over"]
    # The seat that must act now (`null` at the end).
    to_move: int | None
    # The seat whose turn it is (during creation: the seat creating).
    mover: int
    # Turns started so far (0 during creation).
    turn: int
    # Every object.
    objects: list[ClayObject]
    # 2 with 4 players, 3 with 3.
    objects_per_player: int
    # What *you* were told.
    letters: list[Letter]
    # Public log of every letter request.
    letter_requests: list[LetterRequest]
    # Public log of every question.
    questions: list[Question]
    # Public log of every guess.
    guesses: list[Guess]
    # Scoring track position per seat.
    hats: list[int]
    # Elfstones per seat.
    elfstones: list[int]
    # Curse tokens left per seat.
    curses: list[int]
    # Tokens used in the game so far.
    curses_used: int
    # Whether each seat has had its one refill.
    refilled: list[bool]
    # Track space (0-11) per seat.
    wizards: list[int]
    # The 12 spaces.
    track: list[str]
    # The space the mover landed on this turn.
    space: str | None
    # The die this turn (`null` after a paid move).
    last_roll: int | None
    # Arrows on the board.
    arrows_total: int
    # `null`, 1 or 2.
    question_round: int | None
    # Seats still to be offered this curse window, first one acting now.
    curse_window: list[int]
    # The last field of the scoring track.
    finish: int
    # Seats whose hat reached the end (after the game).
    winners: list[int]
    # `finish` or `last_arrow`, once the game is over.
    end_reason: Literal["finish", "last_arrow"] | None
    # End penalties per seat (after the game).
    penalties: list[int] | None
    # Final scores per seat (after the game).
    scores: list[int] | None

Action = Create | Roll | Move | AskLetter | Ask | GuessWord | StopAsking | Pass | Curse
