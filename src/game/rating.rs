//! Glicko-2 ratings as docs/rules.md §10 (ratings) applies them (Glickman, "Example of the Glicko-2
//! system", 2012): a rating, its deviation (RD) and volatility; a rating period of any number
//! of games; the growth of RD over idle weeks. Pure arithmetic: where ratings are stored and
//! when games are rated is the bot's business.

/// The Glicko-2 scale factor between the Glicko scale (1500 ± RD) and the internal one.
const SCALE: f64 = 173.7178;
/// The system constant τ (docs/rules.md §10: ratings).
pub const TAU: f64 = 0.5;
/// The convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;
/// A new player's rating, RD and volatility (docs/rules.md §10: ratings).
pub const START: Rating = Rating {
    rating: 1500.0,
    rd: 350.0,
    volatility: 0.06,
};
/// A rating is provisional (shown with `?`) while its RD is above this.
pub const PROVISIONAL_RD: f64 = 110.0;
/// RD grows once per this many whole days without a rated game (docs/rules.md §10: ratings).
pub const IDLE_PERIOD_DAYS: i64 = 7;

/// A player's Glicko-2 values on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub rd: f64,
    pub volatility: f64,
}

/// One game of a rating period: the opponent's values before the period, and the score
/// (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    pub opponent: Rating,
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

impl Rating {
    /// Whether the rating is still provisional.
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }

    /// The rating after `days` without a rated game: RD grows as in Glicko-2 step 6 once per
    /// whole [`IDLE_PERIOD_DAYS`], never above the starting 350.
    pub fn after_idle(self, days: i64) -> Rating {
        let periods = days.max(0) / IDLE_PERIOD_DAYS;
        if periods == 0 {
            return self;
        }
        let mut phi = self.rd / SCALE;
        for _ in 0..periods.min(10_000) {
            phi = (phi * phi + self.volatility * self.volatility).sqrt();
            if phi * SCALE >= START.rd {
                break;
            }
        }
        Rating {
            rd: (phi * SCALE).min(START.rd),
            ..self
        }
    }

    /// The rating after a rating period with these games (Glicko-2 steps 2–8). With no
    /// games, only RD grows (one period).
    pub fn after(self, games: &[Game]) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.rd / SCALE;
        let sigma = self.volatility;
        if games.is_empty() {
            let rd = ((phi * phi + sigma * sigma).sqrt() * SCALE).min(START.rd);
            return Rating { rd, ..self };
        }
        // Steps 3 and 4: the estimated variance and the improvement.
        let mut inv_v = 0.0;
        let mut sum = 0.0;
        for game in games {
            let mu_j = (game.opponent.rating - 1500.0) / SCALE;
            let phi_j = game.opponent.rd / SCALE;
            let e = expected(mu, mu_j, phi_j);
            inv_v += g(phi_j) * g(phi_j) * e * (1.0 - e);
            sum += g(phi_j) * (game.score - e);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        // Step 5: the new volatility (the Illinois algorithm).
        let a = (sigma * sigma).ln();
        let f = |x: f64| {
            let ex = x.exp();
            ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) * (phi * phi + v + ex))
                - (x - a) / (TAU * TAU)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * TAU) < 0.0 && k < 1000.0 {
                k += 1.0;
            }
            a - k * TAU
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        let mut steps = 0;
        while (big_b - big_a).abs() > EPSILON && steps < 1000 {
            let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(c);
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = c;
            f_b = f_c;
            steps += 1;
        }
        let sigma_new = (big_a / 2.0).exp();
        // Steps 6–8: the new RD and rating.
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        Rating {
            rating: SCALE * mu_new + 1500.0,
            rd: (SCALE * phi_new).min(START.rd),
            volatility: sigma_new,
        }
    }
}

/// Both players' ratings after one rated game between them (docs/rules.md §10, ratings: the game is
/// one rating period for its two players, each updated from both players' values just before it).
/// `score` is the first player's (1, 0.5 or 0).
pub fn after_game(first: Rating, second: Rating, score: f64) -> (Rating, Rating) {
    (
        first.after(&[Game {
            opponent: second,
            score,
        }]),
        second.after(&[Game {
            opponent: first,
            score: 1.0 - score,
        }]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn the_worked_example_of_glickmans_paper() {
        let player = Rating {
            rating: 1500.0,
            rd: 200.0,
            volatility: 0.06,
        };
        let opp = |rating: f64, rd: f64| Rating {
            rating,
            rd,
            volatility: 0.06,
        };
        let after = player.after(&[
            Game {
                opponent: opp(1400.0, 30.0),
                score: 1.0,
            },
            Game {
                opponent: opp(1550.0, 100.0),
                score: 0.0,
            },
            Game {
                opponent: opp(1700.0, 300.0),
                score: 0.0,
            },
        ]);
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.rd, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn one_game_between_new_players_moves_both_by_the_same_amount() {
        let (winner, loser) = after_game(START, START, 1.0);
        // Checked step by step (by hand, and in a separate script): g(φ) = 0.66907 for RD 350,
        // E = 0.5, v = 8.9355, σ' = 0.0600, φ* = 2.01566, φ' = 1.67121 (RD 290.32) and
        // μ' = φ'² · g · 0.5 = 0.93436: a rating of 1662.31.
        assert!(close(winner.rating, 1662.31, 0.01), "{winner:?}");
        assert!(close(winner.rd, 290.32, 0.01), "{winner:?}");
        assert!(close(winner.rating - 1500.0, 1500.0 - loser.rating, 1e-9));
        assert!(close(winner.rd, loser.rd, 1e-9));
        assert!(winner.rd < 350.0 && winner.provisional());
        let (a, b) = after_game(START, START, 0.5);
        assert!(close(a.rating, 1500.0, 1e-9) && close(b.rating, 1500.0, 1e-9));
        assert!(a.rd < 350.0);
    }

    #[test]
    fn rd_grows_once_per_whole_week_idle_and_never_above_350() {
        let r = Rating {
            rating: 1700.0,
            rd: 60.0,
            volatility: 0.06,
        };
        assert_eq!(r.after_idle(0), r);
        assert_eq!(r.after_idle(6), r);
        let week = r.after_idle(7);
        let phi = 60.0 / SCALE;
        assert!(close(
            week.rd,
            (phi * phi + 0.06 * 0.06).sqrt() * SCALE,
            1e-9
        ));
        assert_eq!(r.after_idle(13), week);
        let two = r.after_idle(14);
        assert!(two.rd > week.rd && two.rating == r.rating);
        assert_eq!(r.after_idle(100 * 365).rd, 350.0);
        assert!(!r.provisional() && r.after_idle(100 * 365).provisional());
    }
}
