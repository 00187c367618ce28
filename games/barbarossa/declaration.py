"""What a Barbarossa seat is sent (``Observation``) and may answer (``Action``): games/spec.py says how a game
declares them, and the rules' reference tables, the SDK's types and the reference pages are generated from here."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from games.spec import FREE

Phase = Literal["create", "move", "dwarf", "question", "curse", "over"]
Position = Annotated[int | Literal["last"], 'A letter\'s position: 1 to 11, or `"last"`.']


class ClayObject(TypedDict):
    """An object on the board."""

    id: Annotated[str, "Its id, e.g. `o4`."]
    maker: Annotated[int, "The seat that made it."]
    sculpture: Annotated[
        list[str] | None, "The features it shows; `null` for other players' objects until creation ends."
    ]
    arrows: Annotated[int, "Arrows placed on it."]
    solved_by: Annotated[list[int], "The seats that placed its arrows, in order."]
    word: NotRequired[
        Annotated[
            str | None,
            "Its word: on your own objects (on all once the game is over); `null` until it is created.",
        ]
    ]


class Letter(TypedDict):
    """A letter you were told."""

    object: str
    position: Position
    letter: Annotated[str, 'One lower-case character, or `"none"`.']


class LetterRequest(TypedDict):
    """A letter request, public."""

    asker: int
    object: str
    position: Position
    curse: bool


class Question(TypedDict):
    """A question and its answer, public."""

    asker: int
    object: str
    feature: str
    answer: Literal["yes", "no", "maybe", "cant_say"]


class Guess(TypedDict):
    """A guess, public (its word only on your own guesses, on all once the game is over)."""

    guesser: int
    object: str
    right: bool
    curse: bool
    word: NotRequired[str]


class Observation(TypedDict):
    """The same fields in every phase; fields that do not apply are `null` or empty."""

    seat: Annotated[int, "Your seat (0-based)."]
    players: Annotated[int, "3 or 4."]
    phase: Annotated[Phase, "`create`, `move`, `dwarf`, `question`, `curse` or `over`."]
    to_move: Annotated[int | None, "The seat that must act now (`null` at the end)."]
    mover: Annotated[int, "The seat whose turn it is (during creation: the seat creating)."]
    turn: Annotated[int, "Turns started so far (0 during creation)."]
    objects: Annotated[list[ClayObject], "Every object."]
    objects_per_player: Annotated[int, "2 with 4 players, 3 with 3."]
    letters: Annotated[list[Letter], "What *you* were told."]
    letter_requests: Annotated[list[LetterRequest], "Public log of every letter request."]
    questions: Annotated[list[Question], "Public log of every question."]
    guesses: Annotated[list[Guess], "Public log of every guess."]
    hats: Annotated[list[int], "Scoring track position per seat."]
    elfstones: Annotated[list[int], "Elfstones per seat."]
    curses: Annotated[list[int], "Curse tokens left per seat."]
    curses_used: Annotated[int, "Tokens used in the game so far."]
    refilled: Annotated[list[bool], "Whether each seat has had its one refill."]
    wizards: Annotated[list[int], "Track space (0-11) per seat."]
    track: Annotated[list[str], "The 12 spaces."]
    space: Annotated[str | None, "The space the mover landed on this turn."]
    last_roll: Annotated[int | None, "The die this turn (`null` after a paid move)."]
    arrows_total: Annotated[int, "Arrows on the board."]
    question_round: Annotated[int | None, "`null`, 1 or 2."]
    curse_window: Annotated[list[int], "Seats still to be offered this curse window, first one acting now."]
    finish: Annotated[int, "The last field of the scoring track."]
    winners: Annotated[list[int], "Seats whose hat reached the end (after the game)."]
    end_reason: Annotated[Literal["finish", "last_arrow"] | None, "`finish` or `last_arrow`, once the game is over."]
    penalties: Annotated[list[int] | None, "End penalties per seat (after the game)."]
    scores: Annotated[list[int] | None, "Final scores per seat (after the game)."]


class Creation(TypedDict):
    """A new object: its secret word and the features its sculpture shows."""

    word: Annotated[str, "A word of the lexicon.", FREE]
    sculpture: Annotated[list[str], "Features of that word.", FREE]


class Create(TypedDict):
    """Create an object (phase `create`)."""

    create: Creation


class Roll(TypedDict):
    """Roll the die (phase `move`)."""

    roll: Literal[True]


class Move(TypedDict):
    """Move k spaces for k elfstones, 1 ≤ k ≤ min(6, your stones) (phase `move`)."""

    move: int


class LetterAsk(TypedDict):
    """A letter of an opponent's object."""

    object: str
    position: Position


class AskLetter(TypedDict):
    """Ask for a letter (phase `dwarf`)."""

    letter: LetterAsk


class FeatureAsk(TypedDict):
    """A question about an opponent's object."""

    object: str
    feature: str


class Ask(TypedDict):
    """Ask a question (phase `question`)."""

    ask: FeatureAsk


class WordGuess(TypedDict):
    """A guess at an opponent's word."""

    object: str
    word: Annotated[str, "Your guess.", FREE]


class GuessWord(TypedDict):
    """Guess a word (phase `question`, round 2)."""

    guess: WordGuess


class StopAsking(TypedDict):
    """End the turn (phase `question`, round 2)."""

    stop: Literal[True]


# "pass" is a Python keyword, so this form is declared with the functional syntax.
Pass = TypedDict("Pass", {"pass": Literal[True]})
Pass.__doc__ = "Let the curse window pass (phase `curse`)."


class CurseLetter(TypedDict):
    """A curse that asks for a letter."""

    letter: LetterAsk


class CurseGuess(TypedDict):
    """A curse that guesses a word."""

    guess: WordGuess


class Curse(TypedDict):
    """Use a curse token (phase `curse`): a letter or a guess."""

    curse: CurseLetter | CurseGuess


Action = Create | Roll | Move | AskLetter | Ask | GuessWord | StopAsking | Pass | Curse
