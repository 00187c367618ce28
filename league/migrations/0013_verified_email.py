"""VerifiedEmail: the e-mail address each user has proved they read (REQUIRE_EMAIL_VERIFICATION). Every user who
exists when it is applied is recorded as verified with the address they have: they signed up before verification
existed, and locking existing authors out of uploading by a deploy would punish the wrong people."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

BATCH = 1000


def verify_existing_users(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    VerifiedEmail = apps.get_model("league", "VerifiedEmail")
    now = timezone.now()
    users = User.objects.order_by("pk").values_list("pk", "email")
    rows = [VerifiedEmail(user_id=pk, email=email, verified_at=now) for pk, email in users.iterator()]
    VerifiedEmail.objects.bulk_create(rows, batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0012_tournament_allow_same_owner"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="VerifiedEmail",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="verified_email",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("email", models.EmailField(blank=True, max_length=254)),
                ("verified_at", models.DateTimeField()),
            ],
        ),
        migrations.RunPython(verify_existing_users, migrations.RunPython.noop),
    ]
