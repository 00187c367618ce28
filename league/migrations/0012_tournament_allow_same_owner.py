"""Tournament.allow_same_owner: a rated tournament takes one bot per owner unless staff allow it
(league/tournaments/services.py, check_owners)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("league", "0011_rated_sequence")]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="allow_same_owner",
            field=models.BooleanField(
                default=False,
                help_text="Rated tournaments only: let one owner enter several bots; their games against each other "
                "then change Elo too. Off: a second bot of the same owner is refused.",
                verbose_name="one owner's bots may meet (rated)",
            ),
        ),
    ]
