//! Which of Discord's shards a process runs (`tara-bot run --shards A-B --shard-total N`).

/// Shards `first` to `last` (both included) of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardRange {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

impl ShardRange {
    pub fn new(first: u32, last: u32, total: u32) -> Result<ShardRange, String> {
        if total == 0 {
            return Err("--shard-total must be at least 1.".into());
        }
        if last >= total {
            return Err(format!(
                "--shards {first}-{last} goes past the last shard of {total}: shards are numbered \
                 0 to {}.",
                total - 1
            ));
        }
        Ok(ShardRange { first, last, total })
    }

    /// Whether a guild's events come through these shards: Discord's rule, shard
    /// `(guild_id >> 22) % total`.
    pub fn owns(&self, guild_id: u64) -> bool {
        let shard = (guild_id >> 22) % u64::from(self.total);
        (u64::from(self.first)..=u64::from(self.last)).contains(&shard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_checked_against_the_total() {
        assert!(ShardRange::new(0, 1, 2).is_ok());
        assert!(ShardRange::new(1, 1, 2).is_ok());
        assert!(ShardRange::new(0, 2, 2).unwrap_err().contains("0 to 1"));
        assert!(ShardRange::new(0, 0, 0).is_err());
    }

    #[test]
    fn a_guild_belongs_to_the_shard_discord_says() {
        // (41771983423143937 >> 22) % 4 = 9959216934 % 4 = 2.
        let guild = 41_771_983_423_143_937u64;
        assert_eq!((guild >> 22) % 4, 2);
        assert!(ShardRange::new(2, 2, 4).unwrap().owns(guild));
        assert!(ShardRange::new(0, 3, 4).unwrap().owns(guild));
        assert!(!ShardRange::new(0, 1, 4).unwrap().owns(guild));
        assert!(!ShardRange::new(3, 3, 4).unwrap().owns(guild));
        assert!(ShardRange::new(0, 0, 1).unwrap().owns(guild));
    }
}
